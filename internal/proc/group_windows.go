package proc

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// groupAttr starts a process suspended, in a console process group of its own: startGroup puts
// it in a job object before it runs a single instruction, so that everything it starts is in the
// job too (a job's processes cannot leave it unless it allows them to; this one does not) and
// killGroup ends them all. The cookie sweep of Unix has no /proc to read here; the job takes its
// place, and holds what a Unix process group does not (a child that calls setsid).
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_SUSPENDED}
}

var jobs sync.Map // *exec.Cmd -> windows.Handle, its job

// startGroup starts cmd (suspended, by groupAttr), puts it in a new job and lets it run. A
// process that cannot be put in a job is killed before it ran, never let run outside one.
func startGroup(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	job, err := inJob(uint32(cmd.Process.Pid))
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return fmt.Errorf("a job object for pid %d: %w", cmd.Process.Pid, err)
	}
	jobs.Store(cmd, job)
	return nil
}

// inJob puts the suspended process pid in a new job, then resumes its threads.
func inJob(pid uint32) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	err = windows.AssignProcessToJobObject(job, p)
	windows.CloseHandle(p)
	if err == nil {
		err = resume(pid)
	}
	if err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

// resume resumes every thread of the process pid (a process created suspended has one).
func resume(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		t, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(t)
		windows.CloseHandle(t)
		if err != nil {
			return err
		}
		resumed++
	}
	if resumed == 0 {
		return errors.New("no thread to resume")
	}
	return nil
}

// killGroup ends cmd's job: the process and everything it started.
func killGroup(cmd *exec.Cmd) {
	if job, ok := jobs.LoadAndDelete(cmd); ok {
		_ = windows.TerminateJobObject(job.(windows.Handle), 1)
		windows.CloseHandle(job.(windows.Handle))
		return
	}
	_ = cmd.Process.Kill()
}

func killPID(pid int) {
	if p, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid)); err == nil {
		_ = windows.TerminateProcess(p, 1)
		windows.CloseHandle(p)
	}
}

// stillActive is the exit code GetExitCodeProcess gives a process that has not exited.
const stillActive = 259

// Exists reports whether a process with this pid runs. One that cannot be asked (another user's)
// exists: the safe side for a caller that would take its lock for a dead holder's.
func Exists(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return !errors.Is(err, windows.ERROR_INVALID_PARAMETER) // no such process
	}
	defer windows.CloseHandle(p)
	var code uint32
	if err := windows.GetExitCodeProcess(p, &code); err != nil {
		return true
	}
	return code == stillActive
}
