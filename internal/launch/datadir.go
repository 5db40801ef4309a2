package launch

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// DataDir is the per-user data directory: PAD_HOME when set, else the
// OS's per-user data location.
func DataDir() (string, error) { return DataDirEnv(os.Getenv) }

// DataDirEnv is DataDir with the environment read through getenv.
func DataDirEnv(getenv func(string) string) (string, error) {
	if d := getenv("PAD_HOME"); d != "" {
		return filepath.Abs(d)
	}
	switch runtime.GOOS {
	case "darwin":
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "Library", "Application Support", "padd"), nil
	case "windows":
		if d := getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "padd"), nil
		}
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "padd"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory to keep padd's data in; set PAD_HOME: %w", err)
	}
	return filepath.Join(home, ".local", "share", "padd"), nil
}

// LogFile is padd's log in its data directory (rotated in place), which
// `padctl daemon logs` reads.
const LogFile = "padd.log"

// StartErrFile receives a starting padd's stderr (see Connect): the
// reason when it dies before its log is open.
const StartErrFile = "padd.start.err"
