package adminapi

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"
)

func TestServer(t *testing.T) {
	s := NewServer("127.0.0.1:0", fixtureOptions())
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	base := "http://" + s.Addr()
	for _, tc := range []struct {
		path string
		code int
	}{
		{"/healthz", 200},
		{"/debug/queue?limit=1", 200},
		{"/debug/queue?limit=0", 400},
	} {
		resp, err := http.Get(base + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("GET %s: %d %s", tc.path, resp.StatusCode, body)
		}
	}
	if s.Handler() == nil {
		t.Error("no handler")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("still serving after Shutdown")
	}
}

func TestServerListenError(t *testing.T) {
	s := NewServer("127.0.0.1:0", Options{})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	if err := NewServer(s.Addr(), Options{}).Start(); err == nil {
		t.Error("second server on the same address started")
	}
}
