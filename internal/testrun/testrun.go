// Package testrun runs one of this module's long tests the way a
// command under scripts/ does (scripts/faultrun, scripts/syncfault): go
// test in the module root with the test's own flags, its log streamed
// or not, and the JSON report the test writes read back.
package testrun

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/padd/padd/internal/testbin"
)

// Test is one run of a test.
type Test struct {
	Command string   // the command's name, for its messages
	Name    string   // the test function, e.g. TestFaultRun
	Package string   // e.g. ./e2e
	Args    []string // the test's flags (after -args)
	// ReportFlag is the test's flag naming its JSON report's file;
	// Report is where to keep it ("" for a temporary file).
	ReportFlag, Report string
	Race, Quiet        bool
}

// Run runs the test and decodes its report into out. runErr is go
// test's own failure; err says the report could not be had (its log
// says why).
func (t Test) Run(out any) (runErr, err error) {
	root, err := testbin.ModuleRoot()
	if err != nil {
		return nil, err
	}
	report := t.Report
	if report == "" {
		f, err := os.CreateTemp("", t.Command+"-*.json")
		if err != nil {
			return nil, err
		}
		f.Close()
		report = f.Name()
		defer os.Remove(report)
	} else if report, err = filepath.Abs(report); err != nil {
		return nil, err
	}
	args := []string{"test", "-count=1", "-run", "^" + t.Name + "$", "-v", "-timeout", "3h"}
	if t.Race {
		args = append(args, "-race")
	}
	args = append(args, t.Package, "-args")
	args = append(args, t.Args...)
	args = append(args, t.ReportFlag+"="+report)
	fmt.Fprintf(os.Stderr, "%s: go %s\n", t.Command, strings.Join(args, " "))
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	if !t.Quiet {
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	}
	runErr = cmd.Run()
	b, err := os.ReadFile(report)
	if err != nil || len(b) == 0 || json.Unmarshal(b, out) != nil {
		return runErr, fmt.Errorf("the test wrote no results (%v); its log above says why", runErr)
	}
	return runErr, nil
}

// Fail ends a command that could not run its test.
func Fail(command string, err error) {
	fmt.Fprintln(os.Stderr, command+":", err)
	os.Exit(2)
}
