package gctune

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPolicyGOGC(t *testing.T) {
	const mib = 1 << 20
	p := Policy{Percent: 25, Floor: 32 * mib}
	for _, tc := range []struct {
		name string
		p    Policy
		live uint64
		want int
	}{
		{"nothing live: the floor over the runtime's 4 MiB minimum", p, 0, 800},
		{"a small heap: capped where the minimum reaches the floor", p, 1 * mib, 800},
		{"the floor", p, 16 * mib, 200},
		{"the floor is the live heap", p, 32 * mib, 100},
		{"growth by the floor and by the percent meet", p, 128 * mib, 25},
		{"a large heap: the percent", p, 1 << 30, 25},
		{"no floor", Policy{Percent: 25}, 1 * mib, 25},
		{"a floor below the minimum heap", Policy{Percent: 50, Floor: mib}, 1 * mib, 50},
	} {
		if got := tc.p.GOGC(tc.live); got != tc.want {
			t.Errorf("%s: %+v.GOGC(%d) = %d, want %d", tc.name, tc.p, tc.live, got, tc.want)
		}
	}
}

// gogc is the collector's growth now, read without setting it.
func gogc(t *testing.T) uint64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		t.Fatalf("runtime/metrics has no %s", s[0].Name)
	}
	return s[0].Value.Uint64()
}

// waitGOGC collects until the growth satisfies ok, or fails after 10 s.
func waitGOGC(t *testing.T, what string, ok func(uint64) bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		runtime.GC()
		if ok(gogc(t)) {
			return
		}
	}
	t.Fatalf("%s: the collector's growth stayed at %d%%", what, gogc(t))
}

// TestStart checks that the growth follows the live heap across
// collections, large and small again, and that stop restores the growth
// from before Start.
func TestStart(t *testing.T) {
	prev := gogc(t)
	p := Policy{Percent: 25, Floor: 8 << 20}
	stop := Start(p)
	defer stop()
	waitGOGC(t, "a test's small heap", func(g uint64) bool { return g > 25 })

	hold := make([]byte, 96<<20)
	for i := range hold {
		hold[i] = byte(i)
	}
	waitGOGC(t, "96 MiB live", func(g uint64) bool { return g == 25 })
	runtime.KeepAlive(hold)
	hold = nil
	waitGOGC(t, "the 96 MiB freed", func(g uint64) bool { return g > 25 })

	stop()
	if g := gogc(t); g != prev {
		t.Errorf("after stop the growth is %d%%, want %d%% as before Start", g, prev)
	}
	stop()
}
