// Command killtest is the kill -9 campaign behind the guarantee of
// covpipe's output sets (package store): for each command that writes a
// folder (describe, merge, learn, encode, run, fit, predict), it makes an
// old set in a folder, starts a covpipe writing a new set there, kills it
// with SIGKILL at random moments, and checks that the folder then reads
// as exactly the old set or the new one, never torn or unreadable; then
// that covpipe run once more into the folder completes with the new set.
// Before covpipe reads it, the folder is read as a program other than
// covpipe that follows the NumPy snippet of docs/cli.md reads it (no pending
// marker, every file of meta.json of its size and SHA-256): it must find
// the old set, the new one, or refuse the folder, never accept a mix. It
// prints a tally per command.
//
// merge-aimed is merge with every kill aimed between the renames of the
// commit: as soon as the pending marker .meta.json.pending appears.
//
//	go run ./internal/tools/killtest [--bin covpipe] [--trials 20] [--seed 1] [--slow-renames 20ms] [--work DIR] [COMMAND...]
//
// Without --bin it builds covpipe from the repository it is run in. The
// old and new sets are checked against reference runs of the same
// commands into fresh folders: byte for byte, but for the fields of
// run's results.json and summary.md and learn's learn.json that hold
// times, where the new set is recognised by its seed. A quarter of the
// kill moments are drawn uniformly over a reference run's wall time, a
// quarter over its last quarter and a little beyond, where the files are
// written and committed, and a quarter within 0.3 ms of the moment the
// writer begins its commit. A commit takes well under a millisecond, so
// with --slow-renames D the last quarter run under strace(1), which
// delays each of their renames by D, and are killed at a random moment of
// the commit so stretched: between the renames of the journal. Linux
// only (SIGKILL, /proc, strace).
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/covpipe/covpipe/store"
)

func main() {
	bin := flag.String("bin", "", "covpipe binary (default: build ./cmd/covpipe)")
	trials := flag.Int("trials", 20, "kills per command")
	seed := flag.Uint64("seed", 1, "seed of the kill moments")
	work := flag.String("work", "", "work folder (default: a temporary one, removed at the end)")
	slow := flag.Duration("slow-renames", 0, "with strace, delay every rename of a quarter of the writers by `D` (e.g. 20ms), to kill them inside their commit")
	flag.Parse()
	if err := run(*bin, *work, *trials, *seed, *slow, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "killtest:", err)
		os.Exit(1)
	}
}

// scenario is one command's campaign: old and new write the two sets
// into a folder, format is the sets' format, and seedOf, when not nil,
// says which set a file of the folder belongs to when its bytes hold
// times (the seed it records), for the named file.
type scenario struct {
	name     string
	aimed    bool // every kill right after the pending marker appears
	format   string
	old, new func(out string) []string
	timed    string                       // the file whose bytes differ run to run
	seedOf   func([]byte) (uint64, error) // the seed recorded in timed
	newSeed  uint64
	prepare  func() error // inputs the commands read
}

// tally counts the outcomes of a command's kills.
type tally struct {
	old, new, torn, unreadable, rerunFailed int
	plainOld, plainNew, plainRefused        int           // as a plain reader of docs/cli.md's snippet finds the folder
	plainMixed                              int           // accepted by that reader, yet neither set
	pending, temps                          int           // folders found with a pending marker, with temporary files
	finished                                int           // writers that finished before the kill
	duration                                time.Duration // of the reference run of the new set
}

func run(bin, work string, trials int, seed uint64, slow time.Duration, only []string) error {
	if work == "" {
		tmp, err := os.MkdirTemp("", "killtest-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	}
	if bin == "" {
		bin = filepath.Join(work, "covpipe")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/covpipe").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	c := &campaign{bin: bin, work: work, slow: slow, rng: rand.New(rand.NewPCG(seed, 7))}
	scenarios := c.scenarios()
	fmt.Printf("kill -9 campaign: %d kills per command, seed %d, renames slowed by %v in a quarter of them\n\n", trials, seed, slow)
	fmt.Println("| command | reference run | old set | new set | torn | unreadable | pending commit found | temporary files found | finished before the kill | rerun failed | plain reader: old | new | refused | mixed |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	bad := 0
	for _, s := range scenarios {
		if len(only) > 0 && !slices.Contains(only, s.name) {
			continue
		}
		t, err := c.campaign(s, trials)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Printf("| %s | %.2f s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", s.name, t.duration.Seconds(),
			t.old, t.new, t.torn, t.unreadable, t.pending, t.temps, t.finished, t.rerunFailed,
			t.plainOld, t.plainNew, t.plainRefused, t.plainMixed)
		bad += t.torn + t.unreadable + t.rerunFailed + t.plainMixed
	}
	if bad > 0 {
		return fmt.Errorf("%d kills left a folder torn or unreadable, or a mix a plain reader accepts, or a rerun failed", bad)
	}
	return nil
}

type campaign struct {
	bin, work string
	slow      time.Duration // of each rename, under strace; 0: none
	rng       *rand.Rand
}

// covpipe runs covpipe with args and returns its error with its output.
func (c *campaign) covpipe(args ...string) error {
	out, err := exec.Command(c.bin, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("covpipe %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// campaign runs the kills of s and returns their tally.
func (c *campaign) campaign(s scenario, trials int) (tally, error) {
	var t tally
	if err := s.prepare(); err != nil {
		return t, err
	}
	root := filepath.Join(c.work, s.name)
	refOld, refNew := filepath.Join(root, "ref-old"), filepath.Join(root, "ref-new")
	if err := c.covpipe(s.old(refOld)...); err != nil {
		return t, err
	}
	start := time.Now()
	if err := c.covpipe(s.new(refNew)...); err != nil {
		return t, err
	}
	t.duration = time.Since(start)
	for i := range trials {
		dir := filepath.Join(root, fmt.Sprintf("trial-%02d", i))
		if err := copyDir(refOld, dir); err != nil {
			return t, err
		}
		// A quarter of the kills fall anywhere in the run, a quarter in
		// its last quarter and a little beyond, a quarter within 0.3 ms of
		// the moment the commit begins (a pending marker, or its
		// temporary file, appears), and with --slow-renames a quarter in
		// a commit whose renames strace slows down.
		var delay time.Duration
		mode := i % 4
		if mode == 3 && c.slow == 0 {
			mode = 2
		}
		if s.aimed {
			mode = 4
		}
		switch mode {
		case 0:
			delay = time.Duration(c.rng.Float64() * float64(t.duration))
		case 1:
			delay = time.Duration((0.75 + 0.35*c.rng.Float64()) * float64(t.duration))
		case 2:
			delay = time.Duration(c.rng.Float64() * float64(300*time.Microsecond))
		case 3:
			delay = time.Duration(c.rng.Float64() * float64(6*c.slow))
		}
		args := s.new(dir)
		name := c.bin
		if mode == 3 {
			us := fmt.Sprint(c.slow.Microseconds())
			args = append([]string{"-f", "-o", "/dev/null", "-e", "trace=rename,renameat,renameat2",
				"-e", "inject=rename,renameat,renameat2:delay_exit=" + us, "--", c.bin}, args...)
			name = "strace"
		}
		cmd := exec.Command(name, args...)
		if err := cmd.Start(); err != nil {
			return t, err
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		timer := time.After(delay)
		if mode >= 2 {
			timer = committing(dir, delay, mode == 4)
		}
		select {
		case err := <-done:
			if err != nil {
				return t, fmt.Errorf("trial %d finished with %v before its kill", i, err)
			}
			t.finished++
		case <-timer:
			victim := cmd.Process.Pid
			if mode == 3 {
				victim = child(victim)
			}
			syscall.Kill(victim, syscall.SIGKILL)
			<-done
		}
		switch c.plain(s, dir, refOld, refNew) {
		case "old":
			t.plainOld++
		case "new":
			t.plainNew++
		case "refused":
			t.plainRefused++
		default:
			t.plainMixed++
			fmt.Fprintf(os.Stderr, "%s trial %d (kill at %v): a plain reader accepts a mix\n", s.name, i, delay)
		}
		if _, err := os.Stat(filepath.Join(dir, ".meta.json.pending")); err == nil {
			t.pending++
		}
		if hasTemps(dir) {
			t.temps++
		}
		switch c.classify(s, dir, refOld, refNew) {
		case "old":
			t.old++
		case "new":
			t.new++
		case "torn":
			t.torn++
			fmt.Fprintf(os.Stderr, "%s trial %d (kill at %v): torn\n", s.name, i, delay)
		default:
			t.unreadable++
			fmt.Fprintf(os.Stderr, "%s trial %d (kill at %v): unreadable\n", s.name, i, delay)
		}
		if err := c.covpipe(s.new(dir)...); err != nil || c.classify(s, dir, refOld, refNew) != "new" || hasTemps(dir) {
			t.rerunFailed++
			fmt.Fprintf(os.Stderr, "%s trial %d: the rerun did not leave the new set alone: %v\n", s.name, i, err)
		}
		os.RemoveAll(dir)
	}
	return t, nil
}

// child returns the process that pid started (strace's tracee), or pid
// when it has none.
func child(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		var c int
		if _, err := fmt.Sscan(f[0], &c); err == nil {
			return c
		}
	}
	return pid
}

// committing returns a channel that fires delay after a pending marker,
// or its temporary file unless exact, appears in dir.
func committing(dir string, delay time.Duration, exact bool) <-chan time.Time {
	fire := make(chan time.Time, 1)
	go func() {
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() == ".meta.json.pending" || !exact && strings.HasPrefix(e.Name(), ".meta.json.pending") {
					time.Sleep(delay)
					fire <- time.Now()
					return
				}
			}
		}
	}()
	return fire
}

// classify reads the folder dir as covpipe's readers do (completing a
// commit cut short) and says whether it holds the set of refOld ("old"),
// that of refNew ("new"), a set that is neither ("torn"), or no readable
// set ("unreadable").
func (c *campaign) classify(s scenario, dir, refOld, refNew string) string {
	got, err := readSet(dir, s.format)
	if errors.Is(err, store.ErrTorn) {
		return "torn"
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", dir, err)
		return "unreadable"
	}
	old, err := readSet(refOld, s.format)
	if err != nil {
		return "unreadable"
	}
	if sameFiles(got, old, "", nil, 0) {
		return "old"
	}
	new, err := readSet(refNew, s.format)
	if err != nil {
		return "unreadable"
	}
	if sameFiles(got, new, s.timed, s.seedOf, s.newSeed) {
		return "new"
	}
	return "torn"
}

// plain reads the folder dir as a program other than covpipe that
// follows docs/cli.md's NumPy snippet: it refuses a folder with a pending
// marker, and one whose files are not those meta.json records (size and
// SHA-256); it says whether what it accepts is the set of refOld ("old"),
// that of refNew ("new") or neither ("mixed"), or that it refused it.
func (c *campaign) plain(s scenario, dir, refOld, refNew string) string {
	if _, err := os.Lstat(filepath.Join(dir, ".meta.json.pending")); err == nil {
		return "refused"
	}
	meta, err := os.ReadFile(filepath.Join(dir, store.MetaFile))
	if err != nil {
		return "refused"
	}
	var m struct{ Files []store.File }
	if err := json.Unmarshal(meta, &m); err != nil {
		return "refused"
	}
	got := map[string][]byte{store.MetaFile: meta}
	for _, f := range m.Files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name))
		sum := sha256.Sum256(b)
		if err != nil || int64(len(b)) != f.Size || hex.EncodeToString(sum[:]) != f.SHA256 {
			return "refused"
		}
		got[f.Name] = b
	}
	if old, err := readSet(refOld, s.format); err == nil && sameFiles(got, old, "", nil, 0) {
		return "old"
	}
	if new, err := readSet(refNew, s.format); err == nil && sameFiles(got, new, s.timed, s.seedOf, s.newSeed) {
		return "new"
	}
	return "mixed"
}

// readSet returns the files of the set in dir, marker included, each
// checked against the marker.
func readSet(dir, format string) (map[string][]byte, error) {
	if format == store.Format {
		if _, err := store.Read(dir); err != nil {
			return nil, err
		}
	}
	set, err := store.OpenSet(dir, format)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, f := range set.Files {
		b, err := set.ReadFile(f.Name)
		if err != nil {
			return nil, err
		}
		files[f.Name] = b
	}
	if files[store.MetaFile], err = os.ReadFile(filepath.Join(dir, store.MetaFile)); err != nil {
		return nil, err
	}
	return files, nil
}

// sameFiles reports whether got holds the files of want, byte for byte;
// when timed is not "", the files that record times (timed itself, the
// marker that records its checksum, and run's summary.md, which gives
// the wall time) need only have the same names, and timed the seed want.
func sameFiles(got, want map[string][]byte, timed string, seedOf func([]byte) (uint64, error), seed uint64) bool {
	if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want))) {
		return false
	}
	for name, b := range want {
		if timed != "" && (name == timed || name == store.MetaFile || name == "summary.md") {
			continue
		}
		if !bytes.Equal(got[name], b) {
			return false
		}
	}
	if timed != "" {
		s, err := seedOf(got[timed])
		return err == nil && s == seed
	}
	return true
}

// hasTemps reports whether dir holds a writer's temporary file.
func hasTemps(dir string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".tmp-") {
			return true
		}
	}
	return false
}

// copyDir copies the regular files of src into dst, created anew.
func copyDir(src, dst string) error {
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, d.Name()), b, 0o644)
	})
}

// writeImages writes n 48×48 noise PNGs into 3 class folders of dir.
func writeImages(dir string, n int) error {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range n {
		img := image.NewGray(image.Rect(0, 0, 48, 48))
		for p := range img.Pix {
			img.Pix[p] = uint8(rng.IntN(256))
		}
		img.Set(0, 0, color.Gray{Y: uint8(i)})
		path := filepath.Join(dir, fmt.Sprintf("c%d", i%3), fmt.Sprintf("%04d.png", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			return err
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
