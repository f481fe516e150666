//go:build !linux

package landlock

import "errors"

// holdProgram holds nothing: there is no memfd here, nor Landlock.
func holdProgram(string) (string, func() error, error) {
	return "", nil, errors.New("holding a program needs Linux")
}
