package cluster

import (
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestPromQueries(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("query")
		switch {
		case q == "bad(":
			_, _ = w.Write([]byte(`{"status":"error","errorType":"bad_data","error":"parse error"}`))
		case r.URL.Path == "/api/v1/query":
			_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"s"},"value":[1700000000,"3"]}]}}`))
		case r.URL.Path == "/api/v1/query_range" && r.URL.Query().Get("step") == "5":
			_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"le":"1"},"values":[[1700000000,"1.5"],[1700000005,"NaN"]]}]}}`))
		default:
			http.Error(w, "unexpected "+r.URL.String(), http.StatusBadRequest)
		}
	}))
	defer srv.Close()
	ctx := t.Context()

	got, err := PromQuery(ctx, srv.URL, "up")
	if err != nil || got[`{"job":"s"}`] != "3" {
		t.Errorf("PromQuery = %v, %v", got, err)
	}
	series, err := PromQueryRange(ctx, srv.URL, "x", time.Unix(1700000000, 0), time.Unix(1700000005, 0), 5*time.Second)
	if err != nil || len(series) != 1 || len(series[0].Samples) != 2 || series[0].Samples[0].V != 1.5 || !math.IsNaN(series[0].Samples[1].V) || series[0].Labels["le"] != "1" {
		t.Errorf("PromQueryRange = %+v, %v", series, err)
	}
	if _, err := PromQuery(ctx, srv.URL, "bad("); err == nil || !strings.Contains(err.Error(), "parse error") {
		t.Errorf("an error answer gave %v, want the parse error", err)
	}
}
