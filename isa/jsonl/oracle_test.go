package jsonl_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/internal/oracle"
	"github.com/gpuisa/gpuisa/isa/all"
	"github.com/gpuisa/gpuisa/isa/jsonl"
	"github.com/gpuisa/gpuisa/isa/maxwell"
	"github.com/gpuisa/gpuisa/isa/usse"
)

// tsvWords returns the words of an oracle TSV's hex_canon column as raw
// code, each in its own 8 bytes (4 for the short sm_1x ones).
func tsvWords(t *testing.T, rel string) []byte {
	data, err := os.ReadFile(oracle.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	var code []byte
	col := -1
	for n, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		c := strings.Split(line, "\t")
		if n == 0 {
			for i, name := range c {
				if name == "hex_canon" {
					col = i
				}
			}
			continue
		}
		v, err := strconv.ParseUint(strings.TrimPrefix(c[col], "0x"), 16, 64)
		if err != nil {
			t.Fatalf("%s:%d: %v", rel, n+1, err)
		}
		if len(c[col]) == 10 {
			code = binary.LittleEndian.AppendUint32(code, uint32(v))
		} else {
			code = binary.LittleEndian.AppendUint64(code, v)
		}
	}
	return code
}

// consistent checks what a record's typed fields say against its text:
// the mnemonic is printed, and on NVIDIA's ISAs a branch target's value
// is the address the text shows.
func consistent(listing []byte, nvidia bool) error {
	sc := bufio.NewScanner(bytes.NewReader(listing))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec jsonl.Instruction
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return err
		}
		if rec.Error != "" {
			continue
		}
		if rec.Mnemonic == "" || !strings.Contains(rec.Text, rec.Mnemonic) {
			return fmt.Errorf("mnemonic %q not in %s", rec.Mnemonic, sc.Text())
		}
		for _, o := range rec.Operands {
			if nvidia && o.Kind == "target" && !strings.Contains(rec.Text, fmt.Sprintf("0x%x", *o.Value)) {
				return fmt.Errorf("target %#x not in %s", *o.Value, sc.Text())
			}
		}
	}
	return nil
}

// Every instruction of every oracle program of each ISA has a JSON record
// that validates against the schema and agrees with its text: the FlexGrip
// apps and sass-real rows (sm_1x), the sass-real rows (sm_2x), the
// oracle's cubins (sm_5x), and the oracle's GXP shaders (USSE).
func TestListingSchemaOracle(t *testing.T) {
	schema := loadSchema(t)
	shared := oracle.Path(t, "oracle")
	type listing struct {
		name, isa string
		json      []byte
	}
	var ls []listing
	raw := func(name, arch string, code []byte) {
		a, err := all.Lookup(arch)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := a.WriteJSON(jsonl.NewWriter(&buf), code, 0, "", ""); err != nil {
			t.Fatal(err)
		}
		ls = append(ls, listing{name, a.ISA, buf.Bytes()})
	}
	apps, _ := filepath.Glob(filepath.Join(shared, "flexgrip-apps/*/program.bin"))
	for _, p := range apps {
		code, _ := os.ReadFile(p)
		raw(p, "sm_10", code)
	}
	raw("sm_10.tsv", "sm_10", tsvWords(t, "oracle/sass-real/sm_10.tsv"))
	raw("sm_20.tsv", "sm_20", tsvWords(t, "oracle/sass-real/sm_20.tsv"))
	cubins, _ := filepath.Glob(filepath.Join(shared, "maxwell/cubin/*/*.cubin"))
	for _, p := range cubins {
		data, _ := os.ReadFile(p)
		f, err := cubin.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := maxwell.WriteJSON(jsonl.NewWriter(&buf), f, nil, 0, f.SM()); err != nil {
			t.Fatal(err)
		}
		ls = append(ls, listing{p, "maxwell", buf.Bytes()})
	}
	var gxps []string
	filepath.WalkDir(filepath.Join(shared, "usse"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".gxp") {
			gxps = append(gxps, p)
		}
		return nil
	})
	for _, p := range gxps {
		data, _ := os.ReadFile(p)
		prog, err := gxp.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		jw := jsonl.NewWriter(&buf)
		usse.WriteJSON(jw, gxp.Code(prog.Primary), 0, "primary", "")
		usse.WriteJSON(jw, gxp.Code(prog.Secondary), 0, "secondary", "")
		ls = append(ls, listing{p, "usse", buf.Bytes()})
	}
	total := map[string][2]int{}
	for _, l := range ls {
		r, o := checkRecords(t, schema, l.name, l.json)
		if err := consistent(l.json, l.isa != "usse"); err != nil {
			t.Errorf("%s: %v", l.name, err)
		}
		c := total[l.isa]
		total[l.isa] = [2]int{c[0] + r, c[1] + o}
	}
	for _, name := range []string{"tesla", "fermi", "maxwell", "usse"} {
		c := total[name]
		t.Logf("%s: %d records valid, %d with operands", name, c[0], c[1])
		if c[0] < 100 {
			t.Errorf("%s: only %d records", name, c[0])
		}
	}
}
