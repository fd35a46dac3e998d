package usse

import (
	"errors"
	"fmt"
	"math"
	mbits "math/bits"
)

// Instance is the state of one program instance (a vertex or a fragment;
// the secondary program runs as an instance whose banks are all SA): the
// register file, predicates p0..p3, the index registers and the link
// register.
type Instance struct {
	File      [fileWords]uint32
	P         [4]bool
	Idx       [2]uint32
	Link      uint32 // an instruction index
	Discarded bool   // kill ran
	fault     error
	tex       *textureSet
	mem       *memory
}

// ErrStepLimit: an instance ran more instructions than allowed.
var ErrStepLimit = errors.New("step limit reached (runaway shader?)")

// at is the file word a channel names, with its index register applied.
func (t *Instance) at(reg uint16, index uint8, bank uint16) int {
	w := int(reg)
	if index != 0 {
		w += 2 * int(t.Idx[index-1])
		if w >= int(bank)+bankWords || w >= fileWords {
			if t.fault == nil {
				t.fault = fmt.Errorf("indexed register %s+2*idx%d = word %d is outside its bank", regName(int(reg)), index, w-int(bank))
			}
			return int(reg)
		}
	}
	return w
}

// raw is the bits of a source channel (its part of the word, or the
// constant).
func (t *Instance) raw(s *chanSrc) uint32 {
	if s.part == pConst {
		return s.val
	}
	w := int(s.reg)
	if s.index != 0 {
		w = t.at(s.reg, s.index, s.bank)
	}
	return fieldOf(t.File[w], s.part)
}

// readF is a source channel's value; float formats read as floats, the
// others as their unsigned or signed integer value.
func (t *Instance) readF(s *chanSrc) float32 {
	if s.index == 0 && s.part == pWord && s.fmt == fF32 {
		return f32(t.File[s.reg]) // the common case, inlined
	}
	return t.readSlow(s)
}

func (t *Instance) readSlow(s *chanSrc) float32 {
	if s.part == pConst {
		if s.fmt == fF32 {
			return f32(s.val)
		}
		return toFloat(s.val, s.fmt, false)
	}
	w := t.File[t.at(s.reg, s.index, s.bank)]
	if s.part == pWord && s.fmt == fF32 {
		return f32(w)
	}
	return toFloat(fieldOf(w, s.part), s.fmt, false)
}

// write stores bits into a destination channel's part.
func (t *Instance) write(d *chanDst, v uint32) {
	if d.part == pConst { // an index register
		t.Idx[(d.index-1)&1] = v
		return
	}
	i := int(d.reg)
	if d.index != 0 {
		i = t.at(d.reg, d.index, d.bank)
	}
	if d.part == pWord {
		t.File[i] = v
		return
	}
	t.File[i] = withField(t.File[i], d.part, v)
}

// writeF stores a value converted to the destination's format.
func (t *Instance) writeF(d *chanDst, v float32) {
	if d.fmt == fF32 {
		if d.index == 0 && d.part == pWord {
			t.File[d.reg] = bits(v)
			return
		}
		t.write(d, bits(v))
		return
	}
	t.write(d, fromFloat(v, d.fmt, false))
}

func applyMods(v float32, m uint8) float32 {
	if m == 0 {
		return v
	}
	if m&modAbs != 0 {
		v = f32(bits(v) &^ (1 << 31))
	}
	if m&modNeg != 0 {
		v = -v
	}
	return v
}

// predOK evaluates an op's predicate.
func (t *Instance) predOK(o *op) bool {
	switch p := o.pred; {
	case p == 0:
		return true
	case p == predRpt:
		return t.P[o.it&3]
	case p >= 9:
		return !t.P[(p-9)&3]
	default:
		return t.P[(p-1)&3]
	}
}

// vop is the float operation of kVop, tests and dual issue.
func vop(v int, a, b float32) float32 {
	switch v {
	case vMul:
		return a * b
	case vAdd:
		return a + b
	case vSub:
		return a - b
	case vFrc, vSubflr:
		// Vita3K: "Dest = Source1 - Floor(Source2)" (the fractional part
		// when both sources are one register)
		return a - float32(math.Floor(float64(b)))
	case vMin:
		return float32(minMax(float64(a), float64(b), false))
	case vMax:
		return float32(minMax(float64(a), float64(b), true))
	case vDsx, vDsy:
		return 0 // one instance alone: no neighbouring fragments (doc.go)
	case vRcp:
		return float32(1 / float64(a))
	case vRsq:
		return float32(1 / math.Sqrt(float64(a)))
	case vLog:
		return float32(math.Log2(float64(a)))
	case vExp:
		return float32(math.Exp2(float64(a)))
	case vMov:
		return a
	}
	return 0
}

// minMax is min (or max) that returns the other operand when one is NaN
// (our assumption, as IEEE minNum/maxNum).
func minMax(a, b float64, isMax bool) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	case isMax:
		return math.Max(a, b)
	}
	return math.Min(a, b)
}

// testResult applies a test's sign and zero tests (aux2 of kTest,
// kTestMask) to a float result.
func testResult(code uint32, r float32) bool {
	return testFlags(code, r < 0, r > 0, r == 0)
}

// testFlags combines a result's sign and zero: sign test t(rue)
// n(egative) p(ositive), zero test t z(ero) n(on)z(ero), combined by and
// (bit 4) or or; value 3 of either test fails.
func testFlags(code uint32, neg, pos, zero bool) bool {
	var sign, z bool
	switch code & 3 {
	case 0:
		sign = true
	case 1:
		sign = neg
	case 2:
		sign = pos
	}
	switch code >> 2 & 3 {
	case 0:
		z = true
	case 1:
		z = zero
	case 2:
		z = !zero
	}
	if code>>4&1 != 0 {
		return sign && z
	}
	return sign || z
}

// cmovTest is the condition of cmov on source 0's channel value
// (aux = cond<<1 | tstb).
func cmovTest(test uint32, v float32) bool {
	switch test {
	case 0: // eqzero
		return v == 0
	case 1: // eqzero.tstb
		return v != 0
	case 2: // ltzero
		return v < 0
	}
	return v <= 0 // ltzero.tstb
}

// quad is up to four instances run in lockstep, as the USSE runs the
// instances of a task: lane 0..3 are vertices 4k..4k+3, or the pixels
// (x,y), (x+1,y), (x,y+1), (x+1,y+1) of a 2x2 block. Derivatives read the
// neighbours (the console's vtstmsk dsy results depend on two vertices of
// the four, see doc.go). Control flow is per lane: a branch the lanes
// disagree on splits the quad, and each part runs on alone.
type quad struct {
	lanes [4]*Instance
	tr    [4]*tracer
	steps int64 // instance-instructions executed
	max   int64 // per lane
	count [4]int64
	// faultLane is the lane a returned fault happened in.
	faultLane int
	probe     Probe  // nil: none (inject.go)
	who       [4]int // the lanes' instance numbers (for the probe)
}

// probeAll calls f of the probe for every lane in mask (derivatives:
// their lanes read each other's words).
func (q *quad) probeAll(c *Code, pc int, mask uint8, f func(Probe, *Step)) {
	if q.probe == nil {
		return
	}
	for i := 0; i < 4; i++ {
		if mask>>i&1 != 0 {
			f(q.probe, q.probeStep(c, pc, i, mask))
		}
	}
}

// probeStep is the probe's view of lane i at op pc of code c.
func (q *quad) probeStep(c *Code, pc, i int, mask uint8) *Step {
	return &Step{Code: c, Op: pc, Instance: q.who[i], Lane: i, Quad: mask, T: q.lanes[i]}
}

// laneStatus is what step reports for one lane.
type laneStatus uint8

const (
	laneOn laneStatus = iota
	laneDone
)

// run executes code from op index pc for the lanes in mask until each
// ends, is discarded or faults.
func (q *quad) run(c *Code, pc int, mask uint8) error {
	ops := c.ops
	for mask != 0 {
		if pc < 0 || pc >= len(ops) {
			return c.fault(len(c.Insts), fmt.Errorf("control reached op %d, outside the program", pc))
		}
		o := &ops[pc]
		next := pc + 1
		switch o.kind {
		case kBranch, kLoadPC:
			var targets [4]int
			var taken uint8
			for i := 0; i < 4; i++ {
				if mask>>i&1 == 0 {
					continue
				}
				t := q.lanes[i]
				if err := q.count1(c, o, i); err != nil {
					return err
				}
				if q.probe != nil {
					q.probe.Before(q.probeStep(c, pc, i, mask))
				}
				targets[i] = next
				if t.predOK(o) {
					if o.kind == kLoadPC {
						targets[i] = c.opOf(int(t.Link))
					} else {
						targets[i] = int(o.aux)
						if o.aux2 != 0 {
							t.Link = uint32(o.inst) + 1
						}
					}
					taken |= 1 << i
				}
			}
			if o.kind == kBranch {
				// anyinst/allinst: the branch follows any or all lanes
				switch {
				case o.words[1]&1 != 0 && taken != 0, o.words[1]&2 != 0 && taken == mask:
					taken = mask
				case o.words[1] != 0:
					taken = 0
				}
				for i := 0; i < 4; i++ {
					if mask>>i&1 != 0 {
						if taken>>i&1 != 0 {
							targets[i] = int(o.aux)
						} else {
							targets[i] = next
						}
					}
				}
			}
			for i := 0; i < 4; i++ {
				if mask>>i&1 != 0 && q.tr[i] != nil {
					q.tr[i].jump(c, o, q.lanes[i], targets[i] != next)
				}
				if mask>>i&1 != 0 && q.probe != nil {
					q.probe.After(q.probeStep(c, pc, i, mask))
				}
			}
			// run the lanes going elsewhere than the first lane as their own groups
			first := -1
			for i := 0; i < 4; i++ {
				if mask>>i&1 != 0 && first < 0 {
					first = i
				}
			}
			for i := 0; i < 4; i++ {
				if mask>>i&1 == 0 || targets[i] == targets[first] {
					continue
				}
				var sub uint8
				for j := i; j < 4; j++ {
					if mask>>j&1 != 0 && targets[j] == targets[i] {
						sub |= 1 << j
					}
				}
				mask &^= sub
				if err := q.run(c, targets[i], sub); err != nil {
					return err
				}
			}
			next = targets[first]
			if o.end {
				return nil
			}
			pc = next
			continue
		case kVop, kTestMask, kTest:
			if o.aux == vDsx || o.aux == vDsy {
				q.probeAll(c, pc, mask, Probe.Before)
				if err := q.derivative(c, o, mask); err != nil {
					return err
				}
				q.probeAll(c, pc, mask, Probe.After)
				if o.end {
					return nil
				}
				pc = next
				continue
			}
		}
		running := mask // as the op starts (lanes leave mask as they end)
		for i := 0; i < 4; i++ {
			if mask>>i&1 == 0 {
				continue
			}
			if err := q.count1(c, o, i); err != nil {
				return err
			}
			if q.probe != nil {
				q.probe.Before(q.probeStep(c, pc, i, running))
			}
			st, err := q.lanes[i].step(c, o, q.tr[i])
			if err != nil {
				q.faultLane = i
				return err
			}
			if q.probe != nil {
				q.probe.After(q.probeStep(c, pc, i, running))
			}
			if st == laneDone {
				mask &^= 1 << i
			}
		}
		pc = next
	}
	return nil
}

// count1 counts one instruction of lane i against the step limit.
func (q *quad) count1(c *Code, o *op, i int) error {
	if int(o.inst) >= len(c.Insts) {
		return nil // the implicit end after the last instruction
	}
	q.count[i]++
	q.steps++
	if q.count[i] > q.max {
		q.faultLane = i
		return c.fault(int(o.inst), fmt.Errorf("%w: %d instructions", ErrStepLimit, q.max))
	}
	return nil
}

// derivative runs an op that reads neighbouring lanes: dsx = source 1 of
// the right neighbour (lane 1) minus source 2 of lane 0, dsy = source 1 of
// the lane below (lane 2) minus source 2 of lane 0, the same value in
// every lane of the quad (coarse). A missing neighbour reads as lane 0.
func (q *quad) derivative(c *Code, o *op, mask uint8) error {
	first := 0
	for first < 3 && mask>>first&1 == 0 {
		first++
	}
	other := 2
	if o.aux == vDsx {
		other = 1
	}
	if mask>>other&1 == 0 {
		other = first
	}
	base, nb := q.lanes[first], q.lanes[other]
	var diff [4]float32
	nch := int(o.n)
	if o.kind != kVop {
		nch = 4
		if o.kind == kTest {
			nch = 1
		}
	}
	for k := 0; k < nch; k++ {
		a := applyMods(nb.readF(&o.src[0][k]), o.mods[0])
		b := applyMods(base.readF(&o.src[1][k]), o.mods[1])
		diff[k] = a - b
	}
	for i := 0; i < 4; i++ {
		if mask>>i&1 == 0 {
			continue
		}
		if err := q.count1(c, o, i); err != nil {
			return err
		}
		t := q.lanes[i]
		if !t.predOK(o) {
			continue
		}
		var raw [4]uint32
		switch o.kind {
		case kVop:
			t.storeF(o, &diff)
		case kTestMask:
			for k := 0; k < 4; k++ {
				if testResult(o.aux2, diff[k]) {
					raw[k] = maskTrue(o.sfmt)
				}
			}
			t.storeRaw(o, &raw)
		case kTest:
			t.P[o.words[0]&3] = testResult(o.aux2, diff[0])
			if o.n > 0 {
				t.writeF(&o.dst[0], diff[0])
			}
		}
		if t.fault != nil {
			err := t.fault
			t.fault = nil
			q.faultLane = i
			return c.fault(int(o.inst), err)
		}
		if q.tr[i] != nil {
			q.tr[i].op(c, o, t)
		}
	}
	return nil
}

// step runs op o on instance t (control flow excepted: the quad does it).
func (t *Instance) step(c *Code, o *op, tr *tracer) (laneStatus, error) {
	var res [4]float32
	var rawv [4]uint32
	if !t.predOK(o) {
		if tr != nil {
			tr.skip(c, o)
		}
		if o.end {
			return laneDone, nil
		}
		return laneOn, nil
	}
	switch o.kind {
	case kFault:
		return laneDone, c.fault(int(o.inst), o.err)
	case kNop, kEmit:
	case kEnd:
		if tr != nil && int(o.inst) < len(c.Insts) {
			tr.op(c, o, t)
		}
		return laneDone, nil
	case kKill, kDiscard:
		t.Discarded = true
		if tr != nil {
			tr.op(c, o, t)
		}
		return laneDone, nil
	case kMad:
		for i := 0; i < int(o.n); i++ {
			a := applyMods(t.readF(&o.src[0][i]), o.mods[0])
			b := applyMods(t.readF(&o.src[1][i]), o.mods[1])
			cc := applyMods(t.readF(&o.src[2][i]), o.mods[2])
			res[i] = float32(a*b) + cc
		}
		t.storeF(o, &res)
	case kVop:
		for i := 0; i < int(o.n); i++ {
			a := applyMods(t.readF(&o.src[0][i]), o.mods[0])
			b := applyMods(t.readF(&o.src[1][i]), o.mods[1])
			res[i] = vop(int(o.aux), a, b)
		}
		t.storeF(o, &res)
	case kDot:
		var s float32
		for i := 0; i < int(o.aux); i++ {
			a := applyMods(t.readF(&o.src[0][i]), o.mods[0])
			b := applyMods(t.readF(&o.src[1][i]), o.mods[1])
			s += float32(a * b)
		}
		for i := 0; i < int(o.n); i++ {
			res[i] = s
		}
		t.storeF(o, &res)
	case kComplex:
		a := applyMods(t.readF(&o.src[0][0]), o.mods[0])
		r := vop(int(o.aux), a, 0)
		for i := 0; i < int(o.n); i++ {
			res[i] = r
		}
		t.storeF(o, &res)
	case kMov:
		if o.fmt.isFloat() {
			for i := 0; i < int(o.n); i++ {
				res[i] = t.readF(&o.src[0][i])
			}
			t.storeF(o, &res)
			break
		}
		for i := 0; i < int(o.n); i++ {
			rawv[i] = t.raw(&o.src[0][i])
		}
		t.storeRaw(o, &rawv)
	case kCmov:
		for i := 0; i < int(o.n); i++ {
			s := 2
			if cmovTest(o.aux, t.readF(&o.src[0][i])) {
				s = 1
			}
			if o.fmt.isFloat() {
				res[i] = t.readF(&o.src[s][i])
			} else {
				rawv[i] = t.raw(&o.src[s][i])
			}
		}
		if o.fmt.isFloat() {
			t.storeF(o, &res)
		} else {
			t.storeRaw(o, &rawv)
		}
	case kPack:
		for i := 0; i < int(o.n); i++ {
			x := toFloat(t.raw(&o.src[0][i]), o.sfmt, o.aux != 0)
			if o.src[0][i].part == pConst && o.src[0][i].fmt == fF32 {
				x = f32(o.src[0][i].val)
			}
			rawv[i] = fromFloat(x, o.fmt, o.aux != 0)
		}
		t.storeRaw(o, &rawv)
	case kTestMask:
		var dot float32
		for i := 0; i < 4; i++ {
			a := applyMods(t.readF(&o.src[0][i]), o.mods[0])
			b := t.readF(&o.src[1][i])
			res[i] = vop(int(o.aux), a, b)
			if o.aux == vDp {
				dot += float32(a * b)
			}
		}
		for i := 0; i < 4; i++ {
			if o.aux == vDp {
				res[i] = dot // a dot product of the four channels, tested in each
			}
			rawv[i] = 0
			if testResult(o.aux2, res[i]) {
				rawv[i] = maskTrue(o.sfmt)
			}
		}
		t.storeRaw(o, &rawv)
	case kTest:
		a := applyMods(t.readF(&o.src[0][0]), o.mods[0])
		b := t.readF(&o.src[1][0])
		r := vop(int(o.aux), a, b)
		t.P[o.words[0]&3] = testResult(o.aux2, r)
		if o.n > 0 {
			t.writeF(&o.dst[0], r)
		}
	case kTestInt, kTestMaskInt:
		t.testInt(o)
	case kBitwise:
		a, b := t.raw(&o.src[0][0]), t.raw(&o.src[1][0])
		if o.words[2] != 0 { // partial: 16 bits
			b = uint32(mbits.RotateLeft16(uint16(b), int(o.words[1])))
			if o.aux2 != 0 {
				b = ^b & 0xffff
			}
		} else {
			b = mbits.RotateLeft32(b, int(o.words[1]))
			if o.aux2 != 0 {
				b = ^b
			}
		}
		rawv[0] = bitwise(int(o.aux), a, b)
		t.storeRaw(o, &rawv)
	case kLimm:
		rawv[0] = o.words[0]
		t.storeRaw(o, &rawv)
	case kSetLink:
		t.Link = t.raw(&o.src[0][0])
	case kSaveLink:
		rawv[0] = t.Link
		t.storeRaw(o, &rawv)
	case kDual:
		t.dual(o)
	case kSample:
		t.sample(o)
	case kLoad, kStore:
		t.memOp(o)
	case kIntMad, kSop:
		t.intOp(o)
	default:
		return laneDone, c.fault(int(o.inst), fmt.Errorf("op kind %d: %w", o.kind, errUnsupported))
	}
	if t.fault != nil {
		err := t.fault
		t.fault = nil
		return laneDone, c.fault(int(o.inst), err)
	}
	if tr != nil {
		tr.op(c, o, t)
	}
	if o.end {
		return laneDone, nil
	}
	return laneOn, nil
}

// storeF writes o.n float results (after all sources were read).
func (t *Instance) storeF(o *op, res *[4]float32) {
	for i := 0; i < int(o.n); i++ {
		t.writeF(&o.dst[i], res[i])
	}
}

func (t *Instance) storeRaw(o *op, v *[4]uint32) {
	for i := 0; i < int(o.n); i++ {
		t.write(&o.dst[i], v[i])
	}
}

// maskTrue is what a test mask holds for a passing channel: 0xff for u8,
// the float 1.0 for f16 and f32 (the console's bytes: an all-ones f32, a
// NaN, would read as 0 through the colour conversion, which turns NaN
// into 0 elsewhere in the suite; see doc.go).
func maskTrue(f fmtID) uint32 {
	switch f {
	case fF32:
		return 0x3f800000
	case fF16:
		return 0x3c00
	}
	return 1<<f.width() - 1
}

func bitwise(op int, a, b uint32) uint32 {
	switch op {
	case bwAnd:
		return a & b
	case bwOr:
		return a | b
	case bwXor:
		return a ^ b
	case bwShl:
		return a << (b & 31)
	case bwShr:
		return a >> (b & 31)
	case bwAsr:
		return uint32(int32(a) >> (b & 31))
	case bwRol:
		s := b & 31
		return a<<s | a>>((32-s)&31)
	}
	return 0
}
