package maxwell

import "errors"

// Assemble is a placeholder until the parser lands.
func Assemble(filename string, src []byte, sm int) ([]byte, error) {
	return nil, errors.New("not yet")
}
