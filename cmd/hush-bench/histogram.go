package main

import (
	"math"
	"math/bits"
	"time"
)

// The latency histogram is log-linear over microseconds, like HdrHistogram
// with two significant binary digits of six bits: values below 128 µs have a
// bucket each; above, every power of two is split into 64 equal buckets, so
// a bucket is never wider than 1/64 (1.6 %) of the values it holds. Its size
// is fixed whatever the number of samples; values above histMaxMicros
// (about 71 minutes) are clamped into the last bucket.
const (
	histSubBits   = 6
	histSub       = 1 << histSubBits // buckets per power of two
	histLinear    = 2 * histSub      // values [0, histLinear) map to themselves
	histMaxMicros = 1<<32 - 1
	histBuckets   = histLinear + (32-histSubBits-1)*histSub
)

// histogram counts latencies. It is not safe for concurrent use: each worker
// keeps its own and they are merged at the end.
type histogram struct {
	counts [histBuckets]uint64
	n      uint64
	sum    uint64 // µs
	min    uint64
	max    uint64
}

// bucketOf returns the index of the bucket holding v µs.
func bucketOf(v uint64) int {
	if v < histLinear {
		return int(v)
	}
	if v > histMaxMicros {
		v = histMaxMicros
	}
	shift := bits.Len64(v) - histSubBits - 1 // v>>shift is in [histSub, 2*histSub)
	return histLinear + (shift-1)*histSub + int(v>>shift) - histSub
}

// bucketHigh returns the largest value that maps to bucket i.
func bucketHigh(i int) uint64 {
	if i < histLinear {
		return uint64(i)
	}
	shift := (i-histLinear)/histSub + 1
	sub := uint64((i-histLinear)%histSub + histSub)
	return (sub+1)<<shift - 1
}

// record adds one latency.
func (h *histogram) record(d time.Duration) {
	v := uint64(0)
	if d > 0 {
		v = uint64(d / time.Microsecond)
	}
	h.counts[bucketOf(v)]++
	if h.n == 0 || v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	h.n++
	h.sum += v
}

// merge adds o's samples to h.
func (h *histogram) merge(o *histogram) {
	if o.n == 0 {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	if o.max > h.max {
		h.max = o.max
	}
	h.n += o.n
	h.sum += o.sum
}

// quantile returns the latency (µs) below or at which a fraction q of the
// samples lie: the upper edge of the bucket holding the ceil(q·n)-th sample,
// never above the largest sample seen. It is 0 without samples.
func (h *histogram) quantile(q float64) uint64 {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(bucketHigh(i), h.max)
		}
	}
	return h.max
}

// mean returns the average latency in µs.
func (h *histogram) mean() float64 {
	if h.n == 0 {
		return 0
	}
	return float64(h.sum) / float64(h.n)
}
