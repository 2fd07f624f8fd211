package api

import (
	"strconv"
	"unicode/utf8"
)

// The objects every create and retrieve answers with are written by hand,
// byte for byte as encoding/json writes them (TestAppendJSONMatchesEncodingJSON):
// reflection over their twenty fields was about 2 µs of a request of
// 45 on one core (docs/performance.md). Everything else goes through
// encoding/json.

// jsonAppender is a response object that writes its own JSON.
type jsonAppender interface {
	appendJSON(b []byte) []byte
}

func (o shownPushJSON) appendJSON(b []byte) []byte {
	b = o.pushJSON.appendFields(append(b, '{'))
	b = append(b, `,"payload":`...)
	b = appendStringPtr(b, o.Payload)
	b = append(b, `,"files":`...)
	if o.Files == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, f := range o.Files {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"filename":`...)
			b = appendString(b, f.Filename)
			b = append(b, `,"content_type":`...)
			b = appendString(b, f.ContentType)
			b = append(b, `,"url":`...)
			b = appendString(b, f.URL)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func (o ownerPushJSON) appendJSON(b []byte) []byte {
	return append(o.appendFields(append(b, '{')), '}')
}

func (o *ownerPushJSON) appendFields(b []byte) []byte {
	b = o.pushJSON.appendFields(b)
	b = append(b, `,"note":`...)
	b = appendString(b, o.Note)
	b = append(b, `,"name":`...)
	return appendString(b, o.Name)
}

// appendJSON is notifiedPushJSON's own: the one it would inherit from
// ownerPushJSON leaves out the notification fields.
func (o notifiedPushJSON) appendJSON(b []byte) []byte {
	b = o.ownerPushJSON.appendFields(append(b, '{'))
	b = append(b, `,"notify_emails_to":`...)
	b = appendString(b, o.NotifyEmailsTo)
	b = append(b, `,"notify_emails_to_locale":`...)
	b = appendStringPtr(b, o.NotifyEmailsToLocale)
	return append(b, '}')
}

// appendFields appends o's members, in declaration order, without braces.
func (o *pushJSON) appendFields(b []byte) []byte {
	b = append(b, `"expire_after_views":`...)
	b = strconv.AppendInt(b, int64(o.ExpireAfterViews), 10)
	b = append(b, `,"expired":`...)
	b = strconv.AppendBool(b, o.Expired)
	b = append(b, `,"url_token":`...)
	b = appendString(b, o.URLToken)
	b = append(b, `,"deletable_by_viewer":`...)
	if o.DeletableByViewer == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendBool(b, *o.DeletableByViewer)
	}
	b = append(b, `,"retrieval_step":`...)
	b = strconv.AppendBool(b, o.RetrievalStep)
	b = append(b, `,"expired_on":`...)
	b = appendStringPtr(b, o.ExpiredOn)
	b = append(b, `,"passphrase":`...)
	b = appendStringPtr(b, o.Passphrase)
	b = append(b, `,"created_at":`...)
	b = appendString(b, o.CreatedAt)
	b = append(b, `,"updated_at":`...)
	b = appendString(b, o.UpdatedAt)
	b = append(b, `,"expire_after_days":`...)
	b = strconv.AppendInt(b, int64(o.ExpireAfterDays), 10)
	b = append(b, `,"days_remaining":`...)
	b = strconv.AppendInt(b, int64(o.DaysRemaining), 10)
	b = append(b, `,"views_remaining":`...)
	b = strconv.AppendInt(b, int64(o.ViewsRemaining), 10)
	b = append(b, `,"deleted":`...)
	b = strconv.AppendBool(b, o.Deleted)
	b = append(b, `,"json_url":`...)
	b = appendString(b, o.JSONURL)
	b = append(b, `,"html_url":`...)
	b = appendString(b, o.HTMLURL)
	b = append(b, `,"kind":`...)
	return appendString(b, o.Kind)
}

func appendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

const hexDigits = "0123456789abcdef"

// plainASCII marks the ASCII bytes a JSON string holds as they are.
var plainASCII = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendString appends s as a JSON string the way encoding/json does:
// `<`, `>` and `&` escaped for HTML, U+2028 and U+2029 escaped, and each
// byte of invalid UTF-8 replaced by U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if !plainASCII[c] {
				b = appendEscapedASCII(append(b, s[start:i]...), c)
				start = i + 1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == utf8.RuneError && size == 1:
			esc = `\ufffd`
		case r == '\u2028':
			esc = `\u2028`
		case r == '\u2029':
			esc = `\u2029`
		}
		i += size
		if esc != "" {
			b = append(append(b, s[start:i-size]...), esc...)
			start = i
		}
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendEscapedASCII appends the escape of an ASCII byte that is not plain.
func appendEscapedASCII(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}
