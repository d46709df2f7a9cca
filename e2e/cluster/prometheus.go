package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// PrometheusComponent names Prometheus's process and log.
const PrometheusComponent = "prometheus"

// StartPrometheus runs the Prometheus binary on a free loopback port,
// scraping the schedulers' (every replica) and the API server's /metrics every 5 seconds
// with the admin client certificate, and returns its URL once it is ready.
func (c *Cluster) StartPrometheus(ctx context.Context, binary string) (string, error) {
	dir := filepath.Join(c.opts.Dir, "prometheus")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	port, err := freePort()
	if err != nil {
		return "", err
	}
	pkiDir := filepath.Join(c.opts.Dir, "pki")
	job := func(name string, bases ...string) string {
		var targets []string
		for _, b := range bases {
			targets = append(targets, strconv.Quote(strings.TrimPrefix(b, "https://")))
		}
		return fmt.Sprintf(`- job_name: %s
  scheme: https
  tls_config:
    cert_file: %s
    key_file: %s
    insecure_skip_verify: true # loopback, the cluster's own self-signed serving certificates
  static_configs:
  - targets: [%s]
`, name, filepath.Join(pkiDir, "admin.crt"), filepath.Join(pkiDir, "admin.key"), strings.Join(targets, ", "))
	}
	var schedulers []string
	for _, r := range c.Schedulers {
		schedulers = append(schedulers, r.Secure)
	}
	config := "global:\n  scrape_interval: 5s\n  evaluation_interval: 5s\nscrape_configs:\n" +
		job("kube-scheduler", schedulers...) + job("kube-apiserver", c.APIServer)
	configFile := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(configFile, []byte(config), 0o644); err != nil {
		return "", err
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	fmt.Fprintf(c.opts.Log, "starting Prometheus on %s\n", base)
	if err := c.startBinary(PrometheusComponent, binary,
		"--config.file="+configFile,
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address=127.0.0.1:"+strconv.Itoa(port)); err != nil {
		return "", err
	}
	if err := c.waitHTTP(ctx, PrometheusComponent, base+"/-/ready", 60*time.Second); err != nil {
		return "", err
	}
	return base, nil
}

// PromQuery runs an instant query against Prometheus at base and returns
// the value of each series, keyed by its labels.
func PromQuery(ctx context.Context, base, query string) (map[string]string, error) {
	var result []struct {
		Metric map[string]string `json:"metric"`
		Value  [2]any            `json:"value"`
	}
	if err := promAPI(ctx, base, "query", url.Values{"query": {query}}, &result); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range result {
		labels, _ := json.Marshal(r.Metric)
		out[string(labels)] = fmt.Sprint(r.Value[1])
	}
	return out, nil
}

// Sample is one point of a range-query result.
type Sample struct {
	T float64 // Unix seconds
	V float64 // NaN and ±Inf as Prometheus returns them
}

// RangeSeries is one series of a range-query result.
type RangeSeries struct {
	Labels  map[string]string
	Samples []Sample
}

// PromQueryRange runs a range query against Prometheus at base.
func PromQueryRange(ctx context.Context, base, query string, start, end time.Time, step time.Duration) ([]RangeSeries, error) {
	var result []struct {
		Metric map[string]string `json:"metric"`
		Values [][2]any          `json:"values"`
	}
	params := url.Values{
		"query": {query},
		"start": {strconv.FormatInt(start.Unix(), 10)},
		"end":   {strconv.FormatInt(end.Unix(), 10)},
		"step":  {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)},
	}
	if err := promAPI(ctx, base, "query_range", params, &result); err != nil {
		return nil, err
	}
	out := make([]RangeSeries, 0, len(result))
	for _, r := range result {
		s := RangeSeries{Labels: r.Metric}
		for _, v := range r.Values {
			t, _ := v[0].(float64)
			str, _ := v[1].(string)
			f, err := strconv.ParseFloat(str, 64) // accepts NaN, +Inf, -Inf
			if err != nil {
				return nil, fmt.Errorf("query %q: value %v: %w", query, v[1], err)
			}
			s.Samples = append(s.Samples, Sample{T: t, V: f})
		}
		out = append(out, s)
	}
	return out, nil
}

// promAPI calls Prometheus's HTTP API endpoint /api/v1/<endpoint> and
// decodes data.result of a successful answer into result.
func promAPI(ctx context.Context, base, endpoint string, params url.Values, result any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/"+endpoint+"?"+params.Encode(), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	var doc struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return fmt.Errorf("%s %q: %w", endpoint, params.Get("query"), err)
	}
	if doc.Status != "success" {
		return fmt.Errorf("%s %q: %s", endpoint, params.Get("query"), doc.Error)
	}
	if err := json.Unmarshal(doc.Data.Result, result); err != nil {
		return fmt.Errorf("%s %q: result: %w", endpoint, params.Get("query"), err)
	}
	return nil
}
