package cluster

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// SchedulerPID returns the process ID of the first scheduler (Schedulers[0]),
// e.g. to read its /proc/PID/status.
func (c *Cluster) SchedulerPID() (int, error) {
	name := c.Schedulers[0].Component
	c.mu.Lock()
	p := c.procs[name]
	c.mu.Unlock()
	if p == nil || p.cmd.Process == nil {
		return 0, fmt.Errorf("%s is not running", name)
	}
	return p.cmd.Process.Pid, nil
}

// SchedulerGet GETs path (e.g. "/debug/pprof/heap?gc=1&debug=1") on the
// first scheduler's secure port as the cluster admin, waiting up to timeout
// for the whole answer, and returns its body; an answer other than 200 is
// an error.
func (c *Cluster) SchedulerGet(ctx context.Context, path string, timeout time.Duration) ([]byte, error) {
	client, err := c.httpClient()
	if err != nil {
		return nil, err
	}
	client.Timeout = timeout
	url := c.Schedulers[0].Secure + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d: %.200s", url, resp.StatusCode, body)
	}
	return body, nil
}
