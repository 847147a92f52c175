package main

import (
	"errors"
	"os"
)

// mmap maps nothing on Windows (a mapped file there cannot be replaced while it is mapped, which a
// person saving the model in Archi does): mapFile reads the file instead.
func mmap(*os.File, int) ([]byte, func(), error) {
	return nil, nil, errors.New("not mapped on Windows")
}
