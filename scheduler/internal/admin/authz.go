package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// Bounds of the answers a PodReadAuthorizer keeps.
const (
	// AuthorizationCacheTTL is how long an answer is reused: a burst of
	// admin requests asks the API server once per user and namespace, and
	// a changed RoleBinding takes effect within this time.
	AuthorizationCacheTTL = 10 * time.Second
	// AuthorizationCacheSize bounds the answers kept (user and namespace
	// pairs); the least recently used one makes room. One answer is a key
	// of a few hundred bytes.
	AuthorizationCacheSize = 4096
	// authorizationTimeout bounds one question to the authorizer.
	authorizationTimeout = 5 * time.Second
)

// PodReadAuthorizer answers adminapi's question, "may the caller of this
// request read the pods of namespace X", with the scheduler's delegated
// authorizer (a SubjectAccessReview for verb get on pods, the way the
// secure port authorizes its own paths), and keeps the answers briefly.
type PodReadAuthorizer struct {
	authz authorizer.Authorizer
	cache *cache.LRUExpireCache
	// inFlight holds the reviews being asked, by key: concurrent requests
	// for one user and namespace wait for the same review.
	mu       sync.Mutex
	inFlight map[string]*review
	// reviews counts the questions sent to authz (tests).
	reviews func()
}

// NewPodReadAuthorizer returns the authorizer for the secure port's admin
// routes. authz nil (the scheduler runs without delegated authorization,
// so the secure port lets every authenticated request through) lets
// every caller read every namespace, as the route itself does.
func NewPodReadAuthorizer(authz authorizer.Authorizer) *PodReadAuthorizer {
	return &PodReadAuthorizer{authz: authz, cache: cache.NewLRUExpireCache(AuthorizationCacheSize), inFlight: map[string]*review{}}
}

type cachedDecision struct {
	allowed bool
}

// review is one question to the authorizer that several requests wait for.
type review struct {
	done    chan struct{}
	allowed bool
	err     error
}

// CanReadPods implements adminapi.NamespaceAuthorizer. The empty namespace
// asks for every namespace.
func (p *PodReadAuthorizer) CanReadPods(ctx context.Context, r *http.Request, namespace string) (bool, error) {
	if p.authz == nil {
		return true, nil
	}
	u, ok := request.UserFrom(r.Context())
	if !ok || u == nil {
		return false, errors.New("the request carries no authenticated user")
	}
	key := userKey(u) + "\x00" + namespace
	if v, ok := p.cache.Get(key); ok {
		return v.(cachedDecision).allowed, nil
	}
	p.mu.Lock()
	rv, asked := p.inFlight[key]
	if !asked {
		rv = &review{done: make(chan struct{})}
		p.inFlight[key] = rv
	}
	p.mu.Unlock()
	if asked {
		select {
		case <-rv.done:
			return rv.allowed, rv.err
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	p.lead(ctx, key, rv, u, namespace)
	return rv.allowed, rv.err
}

// lead asks the review that the requests for key wait for, with the
// context of the request that asks it: a request that ends ends its
// review, and those waiting get the error and ask again next time. The
// entry goes, and the waiters are released, however the review ends (a
// panic included).
func (p *PodReadAuthorizer) lead(ctx context.Context, key string, rv *review, u user.Info, namespace string) {
	defer func() {
		p.mu.Lock()
		delete(p.inFlight, key)
		p.mu.Unlock()
		close(rv.done)
	}()
	rv.err = errReviewFailed
	rv.allowed, rv.err = p.ask(ctx, u, namespace)
	if rv.err == nil {
		p.cache.Add(key, cachedDecision{allowed: rv.allowed}, AuthorizationCacheTTL)
	}
}

// errReviewFailed is what the waiters of a review that panicked get.
var errReviewFailed = errors.New("the authorization review failed")

// ask sends one review: may u get pods in namespace.
func (p *PodReadAuthorizer) ask(ctx context.Context, u user.Info, namespace string) (bool, error) {
	if p.reviews != nil {
		p.reviews()
	}
	ctx, cancel := context.WithTimeout(ctx, authorizationTimeout)
	defer cancel()
	decision, _, err := p.authz.Authorize(ctx, authorizer.AttributesRecord{
		User:            u,
		Verb:            "get",
		Namespace:       namespace,
		APIGroup:        "",
		APIVersion:      "v1",
		Resource:        "pods",
		ResourceRequest: true,
	})
	if err != nil && decision != authorizer.DecisionAllow {
		// Not cached: the next request asks again.
		return false, fmt.Errorf("authorizing get pods for %q: %w", u.GetName(), err)
	}
	return decision == authorizer.DecisionAllow, nil
}

// userKey identifies everything about a user that an authorizer may decide
// on: name, UID, groups and extra values, as JSON (each string quoted, so
// no name or group can pass for two).
func userKey(u user.Info) string {
	groups := slices.Clone(u.GetGroups())
	slices.Sort(groups)
	extra := map[string][]string{}
	for k, vals := range u.GetExtra() {
		vals = slices.Clone(vals)
		slices.Sort(vals)
		extra[k] = vals
	}
	b, _ := json.Marshal(struct {
		Name, UID string
		Groups    []string
		Extra     map[string][]string // json sorts the keys
	}{u.GetName(), u.GetUID(), groups, extra})
	return string(b)
}
