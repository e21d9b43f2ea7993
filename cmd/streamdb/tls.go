package main

import (
	"crypto/tls"
	"errors"
	"fmt"
)

// loadTLSConfig reads a PEM certificate (chain) and its private key and
// returns a server configuration that serves them with TLS 1.2 or newer.
// Both files are needed; with neither it returns nil (no TLS) and no error.
func loadTLSConfig(certFile, keyFile string) (*tls.Config, error) {
	switch {
	case certFile == "" && keyFile == "":
		return nil, nil
	case certFile == "" || keyFile == "":
		return nil, errors.New("TLS needs both a certificate file and a key file")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("loading TLS certificate %s and key %s: %w", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}
