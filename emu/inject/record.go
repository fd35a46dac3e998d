package inject

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
)

// Record is one injection's result: a line of the results (JSONL). With
// the campaign file it says everything needed to rerun the injection
// (gpuisa inject replay), and the fields below name the fault itself.
type Record struct {
	Campaign string `json:"campaign"` // the campaign's hash
	ID       int    `json:"id"`
	Of       int    `json:"of"` // injections in the campaign
	Exp      string `json:"exp"`
	Model    string `json:"model"`
	Group    string `json:"group,omitempty"`
	WarpWide bool   `json:"warp_wide,omitempty"`
	// Where: launch, kernel, block (linear index), warp, lane (-1: the
	// warp, or none), the block's warp-instruction index (Step) and the
	// run's (Time) of the instruction, its address and opcode.
	Launch int    `json:"launch"`
	Kernel string `json:"kernel"`
	Block  int    `json:"block"`
	Warp   int    `json:"warp"`
	Lane   int    `json:"lane"`
	Step   int64  `json:"step"`
	Time   int64  `json:"time"`
	PC     string `json:"pc"`
	Op     string `json:"op"`
	// What: the register (or memory byte, unit), the bit (-1: a whole
	// value), the value before and after in the first lane hit.
	Target string `json:"target"`
	Bit    int    `json:"bit"`
	Old    string `json:"old"`
	New    string `json:"new"`
	// The outcome.
	Outcome string   `json:"outcome"`
	Sub     string   `json:"sub,omitempty"`
	Detail  string   `json:"detail,omitempty"`
	SDC     *SDCInfo `json:"sdc,omitempty"`
	NVBitFI string   `json:"nvbitfi"`
	// Insts is the warp-instructions the faulty run executed (with the
	// golden prefix); Early: it stopped before the end, its corrupted
	// state dead (or the global memory equal to the golden run's).
	Insts int64 `json:"insts"`
	Early bool  `json:"early,omitempty"`
	// Activations: a permanent fault's changed values.
	Activations int64   `json:"activations,omitempty"`
	Derate      float64 `json:"derate,omitempty"` // register-file derating (rf)
}

// line is the record's JSONL line (with its newline).
func (r *Record) line() []byte {
	b, _ := json.Marshal(r)
	return append(b, '\n')
}

// ReadRecords reads results, keeping the last record of each id. A
// damaged line (a run killed while writing it) ends the file.
func ReadRecords(rd io.Reader) ([]Record, error) {
	byID := map[int]Record{}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r Record
		if err := json.Unmarshal(line, &r); err != nil || r.Campaign == "" {
			break
		}
		byID[r.ID] = r
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	out := make([]Record, 0, len(byID))
	for _, r := range byID {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// ReadFile reads a results file (a missing file is no records).
func ReadFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadRecords(f)
}

// WriteRecords writes records sorted by id, one line each.
func WriteRecords(w io.Writer, recs []Record) error {
	sorted := append([]Record(nil), recs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	bw := bufio.NewWriter(w)
	for i := range sorted {
		if _, err := bw.Write(sorted[i].line()); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// writeFileAtomic writes records to path through a temporary file.
func writeFileAtomic(path string, recs []Record) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := WriteRecords(f, recs); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Merge combines the results of a campaign's shards: each id once, every
// id of the campaign present, one campaign.
func Merge(sets ...[]Record) ([]Record, error) {
	var all []Record
	seen := map[int]bool{}
	hash, of := "", -1
	for _, set := range sets {
		for _, r := range set {
			if hash == "" {
				hash, of = r.Campaign, r.Of
			}
			if r.Campaign != hash || r.Of != of {
				return nil, fmt.Errorf("injection %d is of campaign %s (%d injections), not %s (%d)", r.ID, r.Campaign, r.Of, hash, of)
			}
			if seen[r.ID] {
				return nil, fmt.Errorf("injection %d is in two files", r.ID)
			}
			seen[r.ID] = true
			all = append(all, r)
		}
	}
	if len(all) != of {
		var missing []int
		for id := 0; id < of && len(missing) < 10; id++ {
			if !seen[id] {
				missing = append(missing, id)
			}
		}
		return nil, fmt.Errorf("%d of %d injections present; missing ids include %v", len(all), of, missing)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	return all, nil
}

// Line is a record's JSONL line, with its newline: what results files hold.
func Line(r *Record) []byte { return r.line() }
