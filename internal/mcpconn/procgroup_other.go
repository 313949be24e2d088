//go:build !unix

package mcpconn

import (
	"os"
	"os/exec"
	"syscall"
)

// Without process groups, only the direct child is signalled.

func setProcessGroup(*exec.Cmd) {}

func signalGroup(pid int, sig syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Signal(sig)
}

func groupAlive(int) bool { return false }
