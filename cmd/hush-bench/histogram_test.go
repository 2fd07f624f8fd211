package main

import (
	"testing"
	"time"
)

func TestBucketsCoverValuesInOrder(t *testing.T) {
	prev := -1
	for _, v := range []uint64{0, 1, 127, 128, 129, 130, 255, 256, 1000, 1 << 20, histMaxMicros} {
		b := bucketOf(v)
		if b < prev || b >= histBuckets {
			t.Fatalf("bucketOf(%d) = %d after %d (of %d)", v, b, prev, histBuckets)
		}
		if hi := bucketHigh(b); hi < v || float64(hi-v) > float64(v)/histSub {
			t.Errorf("bucketHigh(bucketOf(%d)) = %d: not within 1/%d above", v, hi, histSub)
		}
		prev = b
	}
	if b := bucketOf(1 << 40); b != histBuckets-1 {
		t.Errorf("a huge value went to bucket %d, want the last (%d)", b, histBuckets-1)
	}
	for i := 1; i < histBuckets; i++ {
		if bucketOf(bucketHigh(i-1)+1) != i {
			t.Fatalf("bucket %d does not start right after bucket %d ends", i, i-1)
		}
	}
}

func TestQuantiles(t *testing.T) {
	var h histogram
	if h.quantile(0.5) != 0 {
		t.Error("an empty histogram should answer 0")
	}
	for v := 1; v <= 10000; v++ { // 1 µs … 10 ms, uniformly
		h.record(time.Duration(v) * time.Microsecond)
	}
	for _, c := range []struct {
		q    float64
		want uint64
	}{{0.5, 5000}, {0.9, 9000}, {0.99, 9900}, {1, 10000}} {
		got := h.quantile(c.q)
		if got < c.want || float64(got-c.want) > float64(c.want)/histSub {
			t.Errorf("quantile(%v) = %d, want %d (+1/%d)", c.q, got, c.want, histSub)
		}
	}
	if h.max != 10000 || h.min != 1 || h.n != 10000 {
		t.Errorf("min %d max %d n %d", h.min, h.max, h.n)
	}
	if m := h.mean(); m != 5000.5 {
		t.Errorf("mean = %v, want 5000.5", m)
	}
}

func TestQuantileSmallValuesExact(t *testing.T) {
	var h histogram
	for _, v := range []int{3, 1, 2, 100, 4} {
		h.record(time.Duration(v) * time.Microsecond)
	}
	if got := h.quantile(0.5); got != 3 {
		t.Errorf("p50 = %d, want 3", got)
	}
	if got := h.quantile(0.99); got != 100 {
		t.Errorf("p99 = %d, want 100", got)
	}
}

func TestMergeAndMaxClamp(t *testing.T) {
	var a, b histogram
	for range 99 {
		a.record(time.Millisecond)
	}
	b.record(1234567 * time.Microsecond)
	a.merge(&b)
	if a.n != 100 || a.max != 1234567 || a.min != 1000 {
		t.Fatalf("merged: n %d min %d max %d", a.n, a.min, a.max)
	}
	if got := a.quantile(0.99); got < 1000 || got > 1000+1000/histSub {
		t.Errorf("p99 = %d, want 1000 (+1/%d)", got, histSub)
	}
	if got := a.quantile(1); got != 1234567 {
		t.Errorf("p100 = %d, want the exact max 1234567", got)
	}
	a.record(-time.Second) // a clock step backwards counts as 0
	if a.min != 0 {
		t.Errorf("min = %d after a negative sample, want 0", a.min)
	}
}
