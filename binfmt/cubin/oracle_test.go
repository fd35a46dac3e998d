package cubin

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// oracleCubins returns every real cubin of the Maxwell oracle, keyed
// "sm_52/01_vecadd.O3".
func oracleCubins(t testing.TB) map[string][]byte {
	dir := oracle.Path(t, "oracle/maxwell/cubin")
	paths, err := filepath.Glob(filepath.Join(dir, "sm_5*", "*.cubin"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cubins under %s: %v", dir, err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(filepath.Dir(p))+"/"+strings.TrimSuffix(filepath.Base(p), ".cubin")] = b
	}
	return out
}

// TestOracleCode checks every function of all 110 oracle cubins against
// insns.tsv: every kernel listed is found, and every instruction word the
// oracle lists is the word at that offset of our Function.Code.
func TestOracleCode(t *testing.T) {
	cubins := oracleCubins(t)
	if len(cubins) != 110 {
		t.Errorf("found %d oracle cubins, want 110", len(cubins))
	}
	files := map[string]*File{}
	for k, b := range cubins {
		f, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		files[k] = f
	}
	tsv, err := os.Open(oracle.Path(t, "oracle/maxwell/insns.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer tsv.Close()
	sc := bufio.NewScanner(tsv)
	sc.Buffer(nil, 1<<20)
	sc.Scan() // header
	rows := 0
	words := map[*Function]int{}
	for sc.Scan() {
		col := strings.Split(sc.Text(), "\t")
		arch, kernel, offs, hexw, opt := col[0], col[1], col[2], col[3], col[5]
		stem, fname, _ := strings.Cut(kernel, ":")
		key := arch + "/" + stem + "." + opt
		f := files[key]
		if f == nil {
			t.Fatalf("insns.tsv names %s, which is not among the cubins", key)
		}
		fn := f.Function(fname)
		if fn == nil {
			t.Fatalf("%s: function %s not found", key, fname)
		}
		off, _ := strconv.ParseUint(offs, 0, 32)
		want, _ := strconv.ParseUint(hexw, 0, 64)
		if off+8 > uint64(len(fn.Code)) {
			t.Fatalf("%s:%s: offset %#x past the code (%d bytes)", key, fname, off, len(fn.Code))
		}
		if got := binary.LittleEndian.Uint64(fn.Code[off:]); got != want {
			t.Errorf("%s:%s+%#x: word %#016x, oracle %#016x", key, fname, off, got, want)
		}
		words[fn]++
		rows++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// every function with code is in the oracle, and the oracle lists all of
	// its instruction slots (3 of every 4 words; the 4th is the control word)
	nfn := 0
	for k, f := range files {
		for i := range f.Functions {
			fn := &f.Functions[i]
			nfn++
			if want := len(fn.Code) / 32 * 3; words[fn] != want {
				t.Errorf("%s:%s: oracle lists %d instructions, code has %d slots", k, fn.Name, words[fn], want)
			}
			if fn.Size != uint64(len(fn.Code)) || fn.Symbol < 0 {
				t.Errorf("%s:%s: symbol %d size %d, code %d bytes", k, fn.Name, fn.Symbol, fn.Size, len(fn.Code))
			}
		}
	}
	t.Logf("%d cubins, %d functions, %d instruction words match insns.tsv", len(files), nfn, rows)
}

// listingParams reads the KPARAM_INFO and PARAM_CBANK records that nvdisasm
// prints in an ELF-mode listing: function → "ordinal/offset/info" strings and
// function → "base/size".
func listingParams(r io.Reader) (params map[string][]string, cbank map[string]string) {
	params, cbank = map[string][]string{}, map[string]string{}
	secRe := regexp.MustCompile(`^\s*\.section\s+\.nv\.info\.([^,]+),`)
	sc := bufio.NewScanner(r)
	fn, attr := "", ""
	var shorts []string
	for sc.Scan() {
		line := sc.Text()
		if m := secRe.FindStringSubmatch(line); m != nil {
			fn, attr = m[1], ""
			continue
		}
		if strings.Contains(line, ".section") {
			fn = ""
		}
		if _, name, ok := strings.Cut(line, "//----- nvinfo : "); ok {
			attr, shorts = name, nil
			continue
		}
		if fn == "" {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 {
			continue
		}
		switch {
		case fields[1] == ".short" && strings.HasPrefix(fields[2], "0x"):
			shorts = append(shorts, fields[2])
			if attr == "EIATTR_PARAM_CBANK" && len(shorts) == 2 {
				cbank[fn] = shorts[0] + "/" + shorts[1]
			}
		case fields[1] == ".byte" && len(fields) == 6 && attr == "EIATTR_KPARAM_INFO":
			info := strings.TrimSuffix(fields[5], ",") + strings.TrimPrefix(strings.TrimSuffix(fields[4], ","), "0x") +
				strings.TrimPrefix(strings.TrimSuffix(fields[3], ","), "0x") + strings.TrimPrefix(strings.TrimSuffix(fields[2], ","), "0x")
			params[fn] = append(params[fn], shorts[0]+"/"+shorts[1]+"/"+info)
		}
	}
	return params, cbank
}

// TestOracleParams compares the parameter layout we parse with what nvdisasm
// prints for all 110 cubins (sass-all.tar.gz).
func TestOracleParams(t *testing.T) {
	cubins := oracleCubins(t)
	gz, err := os.Open(oracle.Path(t, "oracle/maxwell/sass-all.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer gz.Close()
	zr, err := gzip.NewReader(gz)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	checked, nparams := 0, 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(h.Name, ".nvdisasm.txt") {
			continue
		}
		key := filepath.Base(filepath.Dir(h.Name)) + "/" + strings.TrimSuffix(filepath.Base(h.Name), ".nvdisasm.txt")
		b, ok := cubins[key]
		if !ok {
			t.Fatalf("listing %s has no cubin", h.Name)
		}
		f, err := Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		params, cbank := listingParams(tr)
		for i := range f.Functions {
			fn := &f.Functions[i]
			var got []string
			// nvdisasm lists the records in file order (ptxas writes them last parameter first)
			for _, a := range fn.Info {
				if a.ID == AttrKParamInfo {
					p, _ := parseParam(a, 0)
					got = append(got, fmt.Sprintf("0x%04x/0x%04x/0x%08x", p.Ordinal, p.Offset, binary.LittleEndian.Uint32(a.Data[8:])))
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(params[fn.Name]) {
				t.Errorf("%s:%s: params %v, nvdisasm %v", key, fn.Name, got, params[fn.Name])
			}
			want := cbank[fn.Name]
			if gotCB := fmt.Sprintf("0x%04x/0x%04x", fn.ParamBase, fn.ParamSize); (want != "" || fn.ParamBank >= 0) && gotCB != want {
				t.Errorf("%s:%s: param base/size %s, nvdisasm %s", key, fn.Name, gotCB, want)
			}
			if want != "" && fn.ParamBank != 0 {
				t.Errorf("%s:%s: param bank %d, want 0", key, fn.Name, fn.ParamBank)
			}
			for k, p := range fn.Params {
				if p.Ordinal != k || p.SMem || p.Size == 0 {
					t.Errorf("%s:%s: param %d = %+v", key, fn.Name, k, p)
				}
				if p.Offset+p.Size > fn.ParamSize {
					t.Errorf("%s:%s: param %d [%#x,+%d) beyond param size %#x", key, fn.Name, k, p.Offset, p.Size, fn.ParamSize)
				}
				if c0 := fn.Const(0); uint32(len(c0)) < fn.ParamBase+fn.ParamSize {
					t.Errorf("%s:%s: bank 0 is %d bytes, params end at %#x", key, fn.Name, len(c0), fn.ParamBase+fn.ParamSize)
				}
			}
			nparams += len(fn.Params)
		}
		checked++
	}
	if checked != len(cubins) {
		t.Errorf("compared %d listings, have %d cubins", checked, len(cubins))
	}
	t.Logf("%d listings, %d parameters agree with nvdisasm", checked, nparams)
}

// ptxEntryParams returns, for every .entry of a PTX text, the parameter
// offsets and sizes the PTX declares (each aligned to its natural alignment
// or its .align).
func ptxEntryParams(src string) map[string][][2]uint32 {
	out := map[string][][2]uint32{}
	declRe := regexp.MustCompile(`^\.param\s+(?:\.align\s+(\d+)\s+)?\.([a-z]+)(\d+)\s+[A-Za-z_$%][\w$]*(?:\[(\d+)\])?$`)
	for rest := src; ; {
		i := strings.Index(rest, ".entry ")
		if i < 0 {
			return out
		}
		rest = rest[i+len(".entry "):]
		open, close := strings.Index(rest, "("), strings.Index(rest, ")")
		if open < 0 || close < open {
			return out
		}
		name := strings.TrimSpace(rest[:open])
		var off uint32
		var params [][2]uint32
		for _, decl := range strings.Split(rest[open+1:close], ",") {
			decl = strings.Join(strings.Fields(decl), " ")
			if decl == "" {
				continue
			}
			m := declRe.FindStringSubmatch(decl)
			if m == nil {
				params = append(params, [2]uint32{0xffff, 0}) // unparsed: makes the test fail loudly
				continue
			}
			bits, _ := strconv.Atoi(m[3])
			size, align := uint32(bits/8), uint32(bits/8)
			if m[4] != "" {
				n, _ := strconv.Atoi(m[4])
				size *= uint32(n)
			}
			if m[1] != "" {
				a, _ := strconv.Atoi(m[1])
				align = uint32(a)
			}
			off = (off + align - 1) &^ (align - 1)
			params = append(params, [2]uint32{off, size})
			off += size
		}
		out[name] = params
		rest = rest[close:]
	}
}

// TestOracleParamsPTX checks the parameter offsets and sizes of every kernel
// of the 110 cubins against the PTX it was compiled from.
func TestOracleParamsPTX(t *testing.T) {
	cubins := oracleCubins(t)
	dir := oracle.Path(t, "oracle/maxwell/ptx")
	kernels := 0
	for key, data := range cubins {
		stem := strings.SplitN(filepath.Base(key), ".", 2)[0]
		src, err := os.ReadFile(filepath.Join(dir, stem+".ptx"))
		if err != nil {
			t.Fatal(err)
		}
		want := ptxEntryParams(string(src))
		if len(want) == 0 {
			t.Fatalf("%s: no .entry in the PTX", stem)
		}
		f, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		for name, params := range want {
			fn := f.Function(name)
			if fn == nil {
				t.Errorf("%s: entry %s has no function", key, name)
				continue
			}
			var got [][2]uint32
			for _, p := range fn.Params {
				got = append(got, [2]uint32{p.Offset, p.Size})
			}
			if fmt.Sprint(got) != fmt.Sprint(params) || !fn.Entry {
				t.Errorf("%s:%s: params (offset, size) %v, PTX says %v (entry %v)", key, name, got, params, fn.Entry)
			}
			kernels++
		}
	}
	t.Logf("%d kernels: parameter layout agrees with the PTX", kernels)
}
