package api

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"hush/internal/httpx"
	"hush/internal/service"
)

// download answers GET /api/v2/files/{token}/{name}: the decrypted contents
// of one attachment, streamed. The token alone decides; the name is only for
// the person saving the file. Not a view.
func (s *Server) download(w http.ResponseWriter, r *http.Request) error {
	d, err := s.svc.OpenDownload(r.Context(), r.PathValue("token"), s.meta(r))
	if err != nil {
		return err
	}
	defer d.Body.Close()
	// The first chunk is authenticated before any header goes out, so a
	// damaged file fails with a proper error.
	first := make([]byte, 32<<10)
	n, err := io.ReadFull(d.Body, first)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return err
	}
	h := w.Header()
	// Whatever type the uploader claimed, the browser gets bytes to save,
	// never a document or script to run in this origin.
	h.Set("Content-Type", "application/octet-stream")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Disposition", contentDisposition(d.Name))
	h.Set("Content-Length", strconv.FormatInt(d.Size, 10))
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(httpx.MaxUploadTime))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(first[:n]); err != nil {
		return nil
	}
	if _, err := io.Copy(w, d.Body); err != nil {
		// Headers are out: a failure now can only cut the connection,
		// which the client sees as an incomplete download.
		cause := "the file does not authenticate (damaged or altered in the file store)"
		switch {
		case r.Context().Err() != nil:
			panic(http.ErrAbortHandler) // the client left
		case errors.Is(err, service.ErrStorageRead):
			cause = "the file store failed while sending it"
		}
		s.log.ErrorContext(r.Context(), "download cut", "cause", cause, "err", err)
		panic(http.ErrAbortHandler)
	}
	return nil
}

// contentDisposition names the file for saving: an ASCII fallback and the
// exact UTF-8 name (RFC 6266 / 5987), quotes and controls made harmless.
func contentDisposition(name string) string {
	ascii := strings.Map(func(r rune) rune {
		switch {
		case r < 0x20 || r == 0x7f, r == '"', r == '\\', r == '/':
			return '_'
		case r > 0x7e:
			return '_'
		}
		return r
	}, name)
	v := `attachment; filename="` + ascii + `"`
	if ascii != name {
		v += "; filename*=UTF-8''" + encodeRFC5987(name)
	}
	return v
}

func encodeRFC5987(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("!#$&+-.^_`|~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
