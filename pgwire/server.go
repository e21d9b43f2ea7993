package pgwire

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

// ErrServerClosed is returned by Serve and ListenAndServe after Close.
var ErrServerClosed = errors.New("pgwire: server closed")

// Server accepts Postgres protocol connections and serves each with a
// Session from its Backend. See the package comment for goroutine ownership.
type Server struct {
	backend Backend
	opts    Options
	auth    authenticator

	// ctx is the parent of every connection's and statement's context;
	// Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc

	// wg counts Serve loops and connection goroutines. Add is called only
	// under mu while !closed, so no Add races with Close's Wait.
	wg sync.WaitGroup

	mu        sync.Mutex
	closed    bool
	addr      net.Addr
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{} // every live connection, admitted or not
	keys      map[uint32]*conn   // admitted connections by process id
	sessions  int                // admitted connections
}

// NewServer returns a server that creates sessions with b.
func NewServer(b Backend, opts Options) *Server {
	ctx, cancel := context.WithCancel(context.Background())
	var auth authenticator = trustAuth{}
	if opts.Password != "" {
		auth = newSCRAMAuth(opts.Password)
	}
	return &Server{
		backend:   b,
		opts:      opts.EnsureDefaults(),
		auth:      auth,
		ctx:       ctx,
		cancel:    cancel,
		listeners: make(map[net.Listener]struct{}),
		conns:     make(map[*conn]struct{}),
		keys:      make(map[uint32]*conn),
	}
}

// ListenAndServe listens on Options.Addr and serves it; see Serve.
func (s *Server) ListenAndServe() error {
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return err
	}
	return s.Serve(ln)
}

// Serve accepts connections on ln until Close is called, then returns
// ErrServerClosed; it returns another error if Accept fails for good, or
// at once the error of Options.Validate. Serve takes ownership of ln and
// closes it.
func (s *Server) Serve(ln net.Listener) error {
	if err := s.opts.Validate(); err != nil {
		ln.Close()
		return err
	}
	if !s.trackListener(ln) {
		ln.Close()
		return ErrServerClosed
	}
	defer s.wg.Done()
	defer s.untrackListener(ln)
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.isClosed() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		s.startConn(nc)
	}
}

// Addr returns the address of the listener most recently passed to Serve,
// or nil before that.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// Close stops accepting connections, cancels every running statement,
// closes every connection (telling clients with FATAL 57P01) and waits for
// every goroutine the server started. It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		s.cancel()
		for ln := range s.listeners {
			ln.Close()
		}
		for c := range s.conns {
			c.shutdown(s.opts.ShutdownGrace)
		}
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

func (s *Server) trackListener(ln net.Listener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.listeners[ln] = struct{}{}
	s.addr = ln.Addr()
	s.wg.Add(1)
	return true
}

func (s *Server) untrackListener(ln net.Listener) {
	s.mu.Lock()
	delete(s.listeners, ln)
	s.mu.Unlock()
	ln.Close()
}

// startConn starts the goroutine that owns nc, unless the server is closed.
func (s *Server) startConn(nc net.Conn) {
	c := newConn(s, nc)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		nc.Close()
		return
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	go c.serve()
}

// admit counts c as a session if there is room and gives it its cancel
// key; it reports false when MaxConnections sessions are already open.
func (s *Server) admit(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions >= s.opts.MaxConnections {
		return false
	}
	s.sessions++
	c.admitted = true
	c.key = s.newKeyLocked()
	s.keys[c.key.pid] = c
	return true
}

// forget removes c from the server's tables when its goroutine ends.
func (s *Server) forget(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
	if c.admitted {
		s.sessions--
		delete(s.keys, c.key.pid)
	}
}
