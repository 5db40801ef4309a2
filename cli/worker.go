package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/model"
)

// WorkerFile holds padctl's worker id in the data directory. padd tells
// leases apart by worker id (X-Pad-Worker); a fresh id per run would
// make a person's own claim from the last run someone else's. One id per
// user, kept here, makes padctl one claimant across runs. It is 0600:
// whoever holds the id can renew or release the person's leases.
const WorkerFile = "padctl.worker"

// readWorkerID reads the worker id kept in dir; "" when there is none
// yet. With create, a missing id is minted and kept first.
func readWorkerID(dir string, create bool) (string, error) {
	path := filepath.Join(dir, WorkerFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if !create {
			return "", nil
		}
		return createWorkerID(dir, path)
	}
	if err != nil {
		return "", fmt.Errorf("read padctl's worker id: %w", err)
	}
	id := strings.TrimSpace(string(b))
	if !model.ValidWorkerID(id) {
		return "", failf(codeBadWorkerFile, fmt.Sprintf("delete %s and padctl mints a new id (leases held under the old one stay held until they expire), or pass --worker-id", path),
			"%s does not hold a worker id (wk_ and 32 hex digits)", path)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		_ = os.Chmod(path, 0o600) // made by hand or copied: keep it the user's own
	}
	return id, nil
}

// createWorkerID mints an id and keeps it. It is written to a temporary
// file first and then linked into place, so no run ever reads half an
// id, and two runs racing settle on one: the loser reads the winner's.
func createWorkerID(dir, path string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create padd's data directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, WorkerFile+".*")
	if err != nil {
		return "", fmt.Errorf("keep padctl's worker id: %w", err)
	}
	id := api.NewWorkerID()
	_, werr := tmp.WriteString(id + "\n")
	cerr := tmp.Close()
	defer os.Remove(tmp.Name())
	if werr != nil || cerr != nil {
		return "", fmt.Errorf("keep padctl's worker id: %w", errors.Join(werr, cerr))
	}
	// CreateTemp makes the file 0600; the link fails if another run
	// published first.
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return readWorkerID(dir, false)
		}
		return "", fmt.Errorf("keep padctl's worker id: %w", err)
	}
	return id, nil
}

// workerFlag is --worker-id: whose leases a command acts as or sees.
type workerFlag struct {
	WorkerID string `name:"worker-id" placeholder:"wk_..." help:"Act as this worker (wk_ and 32 hex digits). Default: padctl's own id, kept in ${worker_file} in padd's data directory, so your claims stay yours across runs."`
}

// useWorker makes the client send the worker id as X-Pad-Worker: the
// flag's, else the one padctl keeps (minted first when create is set:
// a claim needs one; a view without one simply has no claims of ours to
// show).
func (a *App) useWorker(cl *api.Client, f workerFlag, create bool) (string, error) {
	id := strings.TrimSpace(f.WorkerID)
	if id != "" {
		if !model.ValidWorkerID(id) {
			return "", usagef(codeBadWorkerId, "a worker id is wk_ followed by 32 lowercase hex digits; leave --worker-id out to use padctl's own",
				"--worker-id %q is not a worker id", id)
		}
	} else {
		dir, err := launch.DataDir()
		if err != nil {
			return "", err
		}
		if id, err = readWorkerID(dir, create); err != nil {
			return "", err
		}
	}
	cl.Worker = id
	return id, nil
}
