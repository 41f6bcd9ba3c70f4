package store

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/covpipe/covpipe/internal/foldertest"
)

// lockHelperEnv names the folder that the test binary, run again as a
// helper process, locks (TestLockTwoProcesses).
const lockHelperEnv = "COVPIPE_STORE_TEST_LOCK"

func TestMain(m *testing.M) {
	if dir := os.Getenv(lockHelperEnv); dir != "" {
		os.Exit(lockHelper(dir))
	}
	os.Exit(m.Run())
}

// lockHelper is the helper process of TestLockTwoProcesses: it starts a
// set in dir, says "locked" on stdout, and commits it when its stdin is
// closed.
func lockHelper(dir string) int {
	f, err := CreateFolder(context.Background(), dir, testFormat)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer f.Abort()
	f.WriteFile("x", []byte(strconv.Itoa(os.Getpid())))
	fmt.Println("locked")
	bufio.NewReader(os.Stdin).ReadString('\n')
	if err := f.Commit(); err != nil {
		fmt.Println(err)
		return 1
	}
	return 0
}

// TestLockTwoProcesses runs a writer in another process and checks that
// a second writer into its folder fails at once naming the folder and
// the other's pid, that a waiting writer waits until it is done (or its
// context ends), and that the lock of a writer killed outright is free.
func TestLockTwoProcesses(t *testing.T) {
	if !lockEnforced {
		t.Skipf("no advisory lock on %s", runtime.GOOS)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	start := func() (*exec.Cmd, *os.File) {
		t.Helper()
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), lockHelperEnv+"="+dir)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		if line != "locked\n" {
			cmd.Process.Kill()
			t.Fatalf("helper: %q", line)
		}
		return cmd, stdin.(*os.File)
	}

	cmd, stdin := start()
	pid := cmd.Process.Pid
	_, err = CreateFolder(context.Background(), dir, testFormat)
	want := fmt.Sprintf("%s is being written by another covpipe (pid %d)", dir, pid)
	var locked *LockedError
	if !errors.As(err, &locked) || locked.PID != pid || err.Error() != want {
		t.Errorf("second writer: %v, want %q", err, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := WaitFolder(ctx, dir, testFormat, 10*time.Millisecond, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting writer with a deadline: %v", err)
	}
	waited := make(chan error, 1)
	told := make(chan *LockedError, 1)
	go func() {
		f, err := WaitFolder(context.Background(), dir, testFormat, 10*time.Millisecond, func(l *LockedError) { told <- l })
		if err == nil {
			defer f.Abort()
			var s *Set
			s, err = OpenSet(dir, testFormat)
			if err == nil {
				var b []byte
				b, err = s.ReadFile("x")
				if string(b) != strconv.Itoa(pid) {
					err = fmt.Errorf("read %q after waiting, want the helper's set", b)
				}
			}
		}
		waited <- err
	}()
	if l := <-told; l.PID != pid {
		t.Errorf("told of %v", l)
	}
	select {
	case err := <-waited:
		t.Fatalf("the waiting writer went on while the helper held the lock: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	if err := <-waited; err != nil {
		t.Errorf("waiting writer: %v", err)
	}

	// kill -9 frees the lock; the next writer removes its temporary file.
	cmd, _ = start()
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	f, err := CreateFolder(context.Background(), dir, testFormat)
	if err != nil {
		t.Fatalf("writer after a killed one: %v", err)
	}
	f.Abort()
	if got := foldertest.Names(t, dir); len(got) != 2 || got[0] != MetaFile || got[1] != "x" {
		t.Errorf("after a killed writer and a new one, the folder holds %v", got)
	}
}

// TestDiskFull writes sets into a 1 MiB tmpfs: one that fits, then one
// that does not, which must fail naming the file and leave the first set
// whole and no temporary file; then one that fits again. It needs to
// mount a tmpfs (root on Linux).
func TestDiskFull(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("tmpfs is Linux's")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a 1 MiB tmpfs (not root?): %v %s", err, out)
	}
	defer exec.Command("umount", dir).Run()
	out := filepath.Join(dir, "out")
	small := map[string]string{"a": strings.Repeat("a", 300<<10), "b": "b"}
	writeSet(t, out, []string{"a", "b"}, small)
	f, err := CreateFolder(context.Background(), out, testFormat)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteFile("a", []byte(strings.Repeat("A", 300<<10)))
	err = f.WriteFile("c", []byte(strings.Repeat("c", 900<<10)))
	if err == nil {
		err = f.Commit()
	}
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), filepath.Join(out, "c")) {
		t.Errorf("a set that does not fit: %v, want ENOSPC naming %s", err, filepath.Join(out, "c"))
	}
	f.Abort()
	s, err := OpenSet(out, testFormat)
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range small {
		if b, err := s.ReadFile(name); err != nil || string(b) != content {
			t.Errorf("%s after a full disk: %v", name, err)
		}
	}
	if got := foldertest.Names(t, out); len(got) != 3 {
		t.Errorf("after a full disk the folder holds %v", got)
	}
	writeSet(t, out, []string{"b"}, map[string]string{"b": strings.Repeat("b", 600<<10)})
}

// TestSetReaders checks the readers of generic sets: OpenSet refuses a
// folder without a marker, of another format or kind, and one whose
// files are not the set recorded, naming the folder and the command to
// rerun; ReadFile checks a recorded file and reads others as they are.
func TestSetReaders(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dict")
	f, err := CreateFolder(context.Background(), dir, FormatDictionary)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteNPY("dictionary.npy", []int{1, 2, 2}, []float64{2, 1, 1, 2})
	f.WriteFile("learn.json", []byte(`{"sigma": 1}`))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	s, err := OpenSet(dir, FormatDictionary)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := s.ReadMatrices("dictionary.npy"); err != nil || m.N != 1 || m.D != 2 || m.Path != filepath.Join(dir, "dictionary.npy") {
		t.Errorf("ReadMatrices: %+v, %v", m, err)
	}
	if shape, data, err := s.ReadNPY("dictionary.npy"); err != nil || !slices.Equal(shape, []int{1, 2, 2}) || !slices.Equal(data, []float64{2, 1, 1, 2}) {
		t.Errorf("ReadNPY: %v %v, %v", shape, data, err)
	}
	if _, _, err := s.ReadNPY("other.npy"); !errors.Is(err, ErrInvalid) {
		t.Errorf("ReadNPY of an unrecorded file: %v", err)
	}
	if _, err := s.ReadFile("other"); !errors.Is(err, ErrInvalid) {
		t.Errorf("an unrecorded file: %v", err)
	}
	if _, err := OpenSet(dir, FormatCodes); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "holds a covpipe-dictionary/1 folder, not a covpipe-codes/1 one") {
		t.Errorf("another kind: %v", err)
	}
	if _, err := OpenSet(dir, "covpipe-dictionary/2"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "rerun covpipe learn") {
		t.Errorf("another version: %v", err)
	}
	if _, err := OpenSet(t.TempDir(), FormatDictionary); !errors.Is(err, ErrNoSet) || !strings.Contains(err.Error(), "rerun covpipe learn") {
		t.Errorf("no marker: %v", err)
	}

	// A new dictionary.npy beside the old learn.json: torn.
	foldertest.WriteFile(t, filepath.Join(dir, "learn.json"), []byte(`{"sigma": 2}`))
	torn := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrTorn) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "rerun covpipe learn") {
			t.Errorf("%s: %v, want ErrTorn naming %s and asking to rerun learn", what, err, dir)
		}
	}
	_, err = s.ReadFile("learn.json")
	torn("Set.ReadFile", err)
	_, err = ReadFile(filepath.Join(dir, "learn.json"))
	torn("ReadFile", err)
	foldertest.WriteFile(t, filepath.Join(dir, "learn.json"), []byte(`{"sigma": 1}`))
	b, _ := os.ReadFile(filepath.Join(dir, "dictionary.npy"))
	b[len(b)-1] ^= 1
	foldertest.WriteFile(t, filepath.Join(dir, "dictionary.npy"), b)
	_, err = s.ReadMatrices("dictionary.npy")
	torn("Set.ReadMatrices", err)
	_, err = ReadMatrices(filepath.Join(dir, "dictionary.npy"))
	torn("ReadMatrices", err)
	_, _, err = s.ReadNPY("dictionary.npy")
	torn("Set.ReadNPY", err)
	os.Remove(filepath.Join(dir, "learn.json"))
	_, err = OpenSet(dir, FormatDictionary)
	torn("OpenSet", err)

	// Files outside a set are read as they are.
	other := filepath.Join(t.TempDir(), "x.json")
	foldertest.WriteFile(t, other, []byte("{}"))
	foldertest.WriteFile(t, filepath.Join(filepath.Dir(other), MetaFile), []byte(`{"not": "covpipe's"}`))
	if b, err := ReadFile(other); err != nil || string(b) != "{}" {
		t.Errorf("a file outside a set: %q, %v", b, err)
	}
}

// TestMergeRefusesBadMatrices checks that Merge refuses a shard whose
// descriptors are not what describe writes, naming the file and the
// matrix, and writes nothing.
func TestMergeRefusesBadMatrices(t *testing.T) {
	r := smallRun()
	for _, tc := range []struct {
		name   string
		damage func(m []float64) // the 2×2 matrix 3 of shard 1
		want   string
	}{
		{"NaN", func(m []float64) { m[3] = math.NaN() }, "matrix 3: entry [1][1] = NaN is not finite"},
		{"Inf", func(m []float64) { m[0] = math.Inf(1) }, "matrix 3: entry [0][0] = +Inf is not finite"},
		{"not symmetric", func(m []float64) { m[1] += 1e-12 }, "matrix 3 is not symmetric"},
		{"not positive definite", func(m []float64) { m[0], m[1], m[2], m[3] = 1, 2, 2, 1 }, "matrix 3 is not positive definite"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shards := r.shards(t, 2)
			path := filepath.Join(shards[1], DescriptorsFile)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			off := npyPrefix + int(binary.LittleEndian.Uint16(b[8:])) + 3*8*4 // the header, then matrices 0..2
			m := make([]float64, 4)
			for i := range m {
				m[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[off+8*i:]))
			}
			tc.damage(m)
			for i, v := range m {
				binary.LittleEndian.PutUint64(b[off+8*i:], math.Float64bits(v))
			}
			foldertest.WriteFile(t, path, b)
			reseal(t, shards[1])
			out := filepath.Join(t.TempDir(), "merged")
			_, err = Merge(context.Background(), out, shards)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), path+": "+tc.want) {
				t.Errorf("error %v, want ErrInvalid naming %s and saying %q", err, path, tc.want)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("failed merge left %s", out)
			}
		})
	}
}
