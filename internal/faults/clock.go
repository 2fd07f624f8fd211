package faults

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"hush/internal/hushproc"
)

// clockJump carries a running server's clock (a faultclock build) past
// its pushes' expiry: pushes expire at access and in the sweeper with no
// request, and expired anonymous pushes are deleted a day later.
func clockJump(ctx context.Context, w *world) (string, error) {
	dir := w.opt.Dir()
	clockFile := filepath.Join(dir, "clock-shift")
	p, err := w.start(hushproc.Spec{Binary: w.opt.Binary, Env: w.env("HUSH_DATA_DIR="+dir,
		"HUSH_FAULT_CLOCK_FILE="+clockFile, "HUSH_SWEEP_INTERVAL=1s")})
	if err != nil {
		return "", err
	}
	base := p.URL()
	n := w.scale(20, 200)
	oneDay, err := w.createDays(ctx, base, 1, n)
	if err != nil {
		return "", err
	}
	threeDays, err := w.createDays(ctx, base, 3, n)
	if err != nil {
		return "", err
	}
	db := filepath.Join(dir, "hush.db")
	shift := func(d string) error { return os.WriteFile(clockFile, []byte(d), 0o600) }

	if err := shift("25h"); err != nil {
		return "", err
	}
	time.Sleep(200 * time.Millisecond) // the clock file is read every 50 ms
	atAccess := w.retrieve(ctx, base, oneDay[0], 10*time.Second)
	if atAccess.push == nil || !atAccess.push.Expired || atAccess.push.Payload != nil {
		w.violate("a one-day push read 25 h later was not expired at access (status %d)", atAccess.status)
	}
	if live := w.retrieve(ctx, base, threeDays[0], 10*time.Second); live.push == nil || live.push.Payload == nil {
		w.violate("a three-day push read 25 h later did not serve its payload (status %d)", live.status)
	}
	swept1 := waitCount(ctx, db, 1, true, n)
	if swept1 != n {
		w.violate("25 h later the sweeper had expired %d one-day pushes, want %d", swept1, n)
	}
	if k := countPushes(ctx, db, 3, true); k != 0 {
		w.violate("25 h later %d three-day pushes were expired", k)
	}
	if err := shift("73h"); err != nil {
		return "", err
	}
	swept2 := waitCount(ctx, db, 3, true, n)
	if swept2 != n {
		w.violate("73 h later %d three-day pushes were expired, want %d", swept2, n)
	}
	// Expired anonymous pushes are deleted a day after their expiry.
	if left := waitCount(ctx, db, 1, false, 0); left != 0 {
		w.violate("48 h after their expiry %d of %d one-day pushes were still stored", left, n)
	}
	return fmt.Sprintf("clock moved 25 h, then 73 h: one-day pushes expired at access and all %d in the sweeper "+
		"with no request, three-day ones untouched; at 73 h all %d three-day ones expired and the one-day ones, "+
		"expired for over a day, deleted", swept1, swept2), nil
}

// createDays creates n pushes of days days and returns their tokens.
func (w *world) createDays(ctx context.Context, base string, days, n int) ([]string, error) {
	var toks []string
	for i := range n {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		res, err := w.client(base).Create(ctx, map[string]any{"payload": fmt.Sprintf("d%d-%d", days, i), "expire_after_days": days})
		cancel()
		if err != nil {
			return nil, err
		}
		toks = append(toks, res.URLToken)
	}
	return toks, nil
}

// countPushes counts the stored pushes of days days (only the expired
// ones, with expiredOnly), reading the SQLite file; -1 when it cannot.
func countPushes(ctx context.Context, path string, days int, expiredOnly bool) int {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return -1
	}
	defer db.Close()
	k := -1
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pushes WHERE expire_after_days = $1 AND (expired = 1 OR NOT $2)`,
		days, expiredOnly).Scan(&k); err != nil {
		return -1
	}
	return k
}

// waitCount polls countPushes for up to 5 s until it is want, and returns
// the last count.
func waitCount(ctx context.Context, path string, days int, expiredOnly bool, want int) int {
	deadline := time.Now().Add(5 * time.Second)
	for {
		k := countPushes(ctx, path, days, expiredOnly)
		if k == want || time.Now().After(deadline) {
			return k
		}
		time.Sleep(100 * time.Millisecond)
	}
}
