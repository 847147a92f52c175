// Package settings reads .archiplan.yaml: one reader for the commands (which put the environment
// and flags on top) and for the configuration a pulled commit carries, so that both see the same
// keys (case-insensitive), the same lists and the same defaults.
package settings

import (
	"bytes"

	"github.com/spf13/viper"
)

// File is the configuration's name at the workspace's root.
const File = ".archiplan.yaml"

// New is a configuration with the defaults and nothing read yet.
func New() *viper.Viper {
	v := viper.New()
	v.SetDefault("model", "model.archimate")
	v.SetDefault("inbox", "plans")
	return v
}

// Read reads a configuration file's bytes into v, as YAML whatever the file's name.
func Read(v *viper.Viper, data []byte) error {
	v.SetConfigType("yaml")
	return v.ReadConfig(bytes.NewReader(data))
}

// Parse is the configuration data holds, over the defaults.
func Parse(data []byte) (*viper.Viper, error) {
	v := New()
	if err := Read(v, data); err != nil {
		return nil, err
	}
	return v, nil
}
