package httpx

import (
	"io"
	"net/http"
	"time"
)

// MaxUploadTime bounds how long one create with files may take to arrive,
// and a download to leave.
const MaxUploadTime = 30 * time.Minute

// PaceBytes is how much of an upload must arrive within each read timeout
// for the connection to be kept: about 17 KiB/s with the default 60 s.
const PaceBytes = 1 << 20

// PacedBody is a request body whose read deadline follows its progress once
// Start is called: every PaceBytes read move the deadline to now plus the
// read timeout, never past Start's time plus the upload's limit. An upload
// that keeps moving gets up to that limit; one that stalls or trickles is
// cut after the read timeout, as any other request body is.
type PacedBody struct {
	io.ReadCloser
	rc           *http.ResponseController
	timeout, max time.Duration
	started      bool
	end          time.Time // the latest deadline
	since        int64     // bytes read since the deadline last moved
}

// Pace wraps r.Body (already bounded in size by the caller) and returns it.
func Pace(w http.ResponseWriter, r *http.Request, timeout, max time.Duration) *PacedBody {
	p := &PacedBody{ReadCloser: r.Body, rc: http.NewResponseController(w), timeout: timeout, max: max}
	r.Body = p
	return p
}

// Start begins pacing: the contents of an allowed file begin.
func (p *PacedBody) Start() {
	if p.started {
		return
	}
	p.started = true
	now := time.Now()
	p.end = now.Add(p.max)
	p.rc.SetReadDeadline(now.Add(p.timeout))
}

func (p *PacedBody) Read(b []byte) (int, error) {
	n, err := p.ReadCloser.Read(b)
	if p.started {
		if p.since += int64(n); p.since >= PaceBytes {
			p.since = 0
			d := time.Now().Add(p.timeout)
			if d.After(p.end) {
				d = p.end
			}
			p.rc.SetReadDeadline(d)
		}
	}
	return n, err
}
