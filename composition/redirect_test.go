package composition

import (
	"context"
	"errors"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRedirectToOtherOrigin: a server that redirects (307) to another port
// on loopback gets no credentials sent there; the redirect is refused with a
// *RedirectError. A redirect within the origin is followed.
func TestRedirectToOtherOrigin(t *testing.T) {
	var reached atomic.Int32
	var leaked atomic.Value
	other := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		leaked.Store(r.Header.Get("Authorization") + r.Header.Get("X-Api-Key"))
		http.Error(w, "should not be reached", http.StatusTeapot)
	})
	redirecting := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other+r.URL.Path, http.StatusTemporaryRedirect)
	})
	for _, tr := range []Transport{HTTP(redirecting + "/mcp"), SSE(redirecting + "/sse")} {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		_, err := Connect(ctx, tr, WithBearerToken("bearer-secret-1"), WithHeader("X-Api-Key", "header-secret-2"))
		cancel()
		var re *RedirectError
		if !errors.As(err, &re) {
			t.Fatalf("%s: want a *RedirectError, got %v", tr, err)
		}
		if re.Status != http.StatusTemporaryRedirect || !strings.HasPrefix(re.To, other) {
			t.Errorf("%s: %+v", tr, re)
		}
		if msg := err.Error(); strings.Contains(msg, "secret") || !strings.Contains(msg, "another origin") {
			t.Errorf("%s: %s", tr, msg)
		}
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the other origin got %d requests (credentials %q)", n, leaked.Load())
	}

	t.Run("same origin", func(t *testing.T) {
		bin := buildTestServer(t)
		real, err := url.Parse(startHTTPServer(t, bin))
		if err != nil {
			t.Fatal(err)
		}
		proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: real.Scheme, Host: real.Host})
		front := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/old" {
				http.Redirect(w, r, real.Path, http.StatusTemporaryRedirect)
				return
			}
			proxy.ServeHTTP(w, r)
		})
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		s, err := Connect(ctx, HTTP(front+"/old"), WithHeader("X-Api-Key", "header-secret-2"))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.ListToolsRaw(ctx); err != nil {
			t.Fatal(err)
		}
	})
}
