package emu

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Num is a launch-file number: a JSON number or a string in C syntax
// ("0x1f", "-3", "1.5", "017", "2.5f"). It keeps the text and converts on use,
// so an integer keeps all 64 bits and a float is parsed only as a float.
type Num struct {
	Text string // "" when absent
}

// UnmarshalJSON accepts a JSON number or string.
func (n *Num) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "null" {
		return nil
	}
	if strings.HasPrefix(s, `"`) {
		var t string
		if err := json.Unmarshal(b, &t); err != nil {
			return err
		}
		t = strings.TrimSpace(t)
		if t == "" {
			return notNumber(`""`)
		}
		n.Text = t
		return nil
	}
	if s == "" || !(s[0] == '-' || s[0] >= '0' && s[0] <= '9') {
		return notNumber(s)
	}
	n.Text = s
	return nil
}

// notNumber is the error for a JSON value that is not a number: a type
// error, which encoding/json completes with the field it is in (so that
// the message can point at it).
func notNumber(v string) error {
	return &json.UnmarshalTypeError{Value: v + " (not a number)", Type: reflect.TypeFor[Num]()}
}

// Set reports whether the number was given.
func (n Num) Set() bool { return n.Text != "" }

// cTrim drops C literal suffixes (u, l, f) that strconv does not know.
func cTrim(s string, float bool) string {
	for len(s) > 1 {
		c := s[len(s)-1] | 0x20
		if c == 'u' || c == 'l' || float && c == 'f' && !strings.HasPrefix(strings.ToLower(s), "0x") && !isInfNaN(s) {
			s = s[:len(s)-1]
			continue
		}
		break
	}
	return s
}

func isInfNaN(s string) bool {
	l := strings.TrimLeft(strings.ToLower(s), "+-")
	return strings.HasPrefix(l, "inf") || strings.HasPrefix(l, "nan")
}

// Int returns the number as a 64-bit integer: signed values in [-2^63, 2^63),
// unsigned ones up to 2^64-1 (returned as their two's-complement bits).
func (n Num) Int() (int64, error) {
	s := cTrim(n.Text, false)
	if v, err := strconv.ParseInt(s, 0, 64); err == nil {
		return v, nil
	}
	if v, err := strconv.ParseUint(s, 0, 64); err == nil {
		return int64(v), nil
	}
	// an integral float such as 1e3 or 4.0
	if f, err := strconv.ParseFloat(cTrim(n.Text, true), 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		return int64(f), nil
	}
	return 0, fmt.Errorf("%q is not an integer", n.Text)
}

// Uint returns the number as an unsigned integer below limit (inclusive
// bound limit-1); negative numbers are rejected.
func (n Num) Uint(limit uint64) (uint64, error) {
	v, err := n.Int()
	if err != nil {
		return 0, err
	}
	s := strings.TrimSpace(n.Text)
	if strings.HasPrefix(s, "-") {
		return 0, fmt.Errorf("%q is negative", n.Text)
	}
	if limit != 0 && uint64(v) >= limit {
		return 0, fmt.Errorf("%q is too large (limit %#x)", n.Text, limit-1)
	}
	return uint64(v), nil
}

// Float returns the number as a float64.
func (n Num) Float() (float64, error) {
	s := cTrim(n.Text, true)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f, nil
	} else if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return f, nil // ±Inf or 0 for out-of-range literals, as C does
	}
	if v, err := strconv.ParseInt(cTrim(n.Text, false), 0, 64); err == nil {
		return float64(v), nil
	}
	return 0, fmt.Errorf("%q is not a number", n.Text)
}
