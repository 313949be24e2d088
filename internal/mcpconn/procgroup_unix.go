//go:build unix

package mcpconn

import (
	"os/exec"
	"syscall"
)

// A stdio server runs in a process group of its own (setpgid), so that a
// server started through a launcher (`bash -c`, npx, uvx, `go run`) is ended
// whole: the launcher, the server it started and anything they left behind.
// Signals go to the group (kill(-pgid)).

// setProcessGroup makes cmd start in a new process group whose id is its pid.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to every process of the group led by pid.
func signalGroup(pid int, sig syscall.Signal) error {
	return syscall.Kill(-pid, sig)
}

// groupAlive reports whether a process of the group led by pid remains.
func groupAlive(pid int) bool {
	return syscall.Kill(-pid, 0) == nil
}
