package adminapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// This file holds what every resource shares: choosing text or JSON,
// writing either within the response size bound, errors, and the small
// formatting helpers of the text tables.

// wantJSON reports whether the client asked for JSON: ?output=json, or an
// Accept header that prefers application/json to text/plain. An explicit
// (valid) output= wins over Accept.
func wantJSON(r *http.Request) bool {
	if v, ok := rawParam(r.URL.RawQuery, "output"); ok {
		switch strings.ToLower(v) {
		case "json":
			return true
		case "text":
			return false
		}
	}
	return acceptsJSON(r.Header.Values("Accept"))
}

// acceptsJSON reports whether application/json has a higher quality than
// text/plain in the Accept header (the first listed wins a tie).
func acceptsJSON(accept []string) bool {
	qJSON, qText := -1.0, -1.0
	first := ""
	for _, h := range accept {
		for _, part := range strings.Split(h, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			q := 1.0
			if s, ok := params["q"]; ok {
				if f, err := strconv.ParseFloat(s, 64); err == nil {
					q = f
				}
			}
			switch mt {
			case "application/json":
				if qJSON < 0 {
					qJSON = q
					if first == "" {
						first = mt
					}
				}
			case "text/plain":
				if qText < 0 {
					qText = q
					if first == "" {
						first = mt
					}
				}
			}
		}
	}
	if qJSON <= 0 {
		return false
	}
	return qJSON > qText || (qJSON == qText && first == "application/json")
}

// tooLargeError is returned by limitedBuffer once the limit is passed.
type tooLargeError struct{}

func (tooLargeError) Error() string { return "response too large" }

// limitedBuffer is a bytes.Buffer that refuses to grow beyond max bytes.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.max {
		return 0, tooLargeError{}
	}
	return b.Buffer.Write(p)
}

// render writes v as JSON, or what text writes, as the client asked. The
// response is built in memory up to MaxResponseBytes; beyond that the client
// gets a 500 asking for a smaller limit=.
func (a *api) render(w http.ResponseWriter, r *http.Request, v any, text func(io.Writer) error) {
	buf := &limitedBuffer{max: a.opts.MaxResponseBytes}
	var err error
	contentType := "text/plain; charset=utf-8"
	if wantJSON(r) {
		contentType = "application/json"
		enc := json.NewEncoder(buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		err = enc.Encode(v)
	} else {
		err = text(buf)
	}
	if errors.As(err, new(tooLargeError)) {
		a.log.Error("admin API response too large", "path", r.URL.Path, "maxBytes", a.opts.MaxResponseBytes)
		writeError(w, r, http.StatusInternalServerError, fmt.Sprintf(
			"the response exceeds %s; ask for fewer items with limit=", count(a.opts.MaxResponseBytes, "byte", "bytes")))
		return
	}
	if err != nil {
		panic(fmt.Errorf("rendering %s: %w", r.URL.Path, err))
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	h.Add("Vary", "Accept")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

// statusDoc is the JSON body of an error, shaped like a Kubernetes Status.
type statusDoc struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Status     string `json:"status"`
	Code       int    `json:"code"`
	Reason     string `json:"reason"`
	Message    string `json:"message"`
}

// writeError answers with code and msg: a Status document if the client
// asked for JSON, the message on one line otherwise.
func writeError(w http.ResponseWriter, r *http.Request, code int, msg string) {
	h := w.Header()
	h.Add("Vary", "Accept")
	if wantJSON(r) {
		b, _ := json.MarshalIndent(statusDoc{
			APIVersion: APIVersion,
			Kind:       "Status",
			Status:     "Failure",
			Code:       code,
			Reason:     strings.ReplaceAll(http.StatusText(code), " ", ""),
			Message:    msg,
		}, "", "  ")
		h.Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write(append(b, '\n'))
		return
	}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, msg+"\n")
}

// badRequest answers 400 with the parameter error's message.
func badRequest(w http.ResponseWriter, r *http.Request, err error) {
	writeError(w, r, http.StatusBadRequest, err.Error())
}

// newTable returns a tabwriter laid out like kubectl's tables.
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
}

// row writes one tab-separated table row.
func row(w io.Writer, cells ...string) {
	_, _ = io.WriteString(w, strings.Join(cells, "\t")+"\n")
}

const none = "<none>"

// orNone returns s, or "<none>" when s is empty.
func orNone(s string) string {
	if s == "" {
		return none
	}
	return s
}

// joinOrNone joins ss with commas, or returns "<none>".
func joinOrNone(ss []string) string {
	return orNone(strings.Join(ss, ","))
}

// count writes n with the noun that agrees with it: "1 pod", "2 pods".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// age formats a duration the way kubectl prints ages: "45s", "3m12s",
// "5h7m", "2d3h". Negative durations print as "0s".
func age(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%ds", s/60, s%60)
	case s < 86400:
		return fmt.Sprintf("%dh%dm", s/3600, s%3600/60)
	default:
		return fmt.Sprintf("%dd%dh", s/86400, s%86400/3600)
	}
}

// ageSince formats the age of t at now, or "<none>" for a zero t.
func ageSince(now, t time.Time) string {
	if t.IsZero() {
		return none
	}
	return age(now.Sub(t))
}

// shortDuration formats a short duration (a cycle, an evaluation) with
// microsecond resolution below a second: "12.345ms", "1.5s".
func shortDuration(d time.Duration) string {
	if d >= time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Microsecond).String()
}

// timestamp formats t as RFC 3339 in UTC, or "<none>" for a zero t.
func timestamp(t time.Time) string {
	if t.IsZero() {
		return none
	}
	return t.UTC().Format(time.RFC3339)
}

// seconds converts d to float seconds for JSON.
func seconds(d time.Duration) float64 {
	return d.Seconds()
}

// utc returns t in UTC (zero stays zero), so JSON timestamps end in "Z".
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC()
}
