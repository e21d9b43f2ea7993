package pgwire

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/internal/pgerr"
	"golang.org/x/text/secure/precis"
)

// SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL runs it over SASL
// messages: AuthenticationSASL offers the mechanism, the client answers
// with SASLInitialResponse (client-first-message), the server with
// AuthenticationSASLContinue (server-first-message: nonce, salt,
// iterations), the client with SASLResponse (client-final-message with its
// proof), and the server ends with AuthenticationSASLFinal (its own
// signature) and AuthenticationOk. The server never sees the password: it
// keeps a verifier (salt, StoredKey, ServerKey) computed once at NewServer.
//
// Over TLS the server offers SCRAM-SHA-256-PLUS first (RFC 5802 §6, as
// PostgreSQL): the client then binds the exchange to the channel with
// tls-server-end-point (RFC 5929), the hash of the certificate the server
// served, which its proof covers; a man in the middle who terminated TLS
// with another certificate cannot pass it on. A client that could bind
// but says it thinks the server cannot ("y") is refused when the server
// offered -PLUS: someone removed it from the offer.
const (
	scramMechanism  = "SCRAM-SHA-256"
	scramPlus       = "SCRAM-SHA-256-PLUS"
	scramCBindType  = "tls-server-end-point"
	scramIterations = 4096 // PostgreSQL's default scram_iterations
	scramSaltLen    = 16   // PostgreSQL's SCRAM_DEFAULT_SALT_LEN
	scramNonceLen   = 18   // random bytes in the server's part of the nonce
	codeInvalidPass = "28P01"
)

// scramVerifier is what the server keeps of a password (RFC 5802 §3).
type scramVerifier struct {
	salt       []byte
	iterations int
	storedKey  []byte // H(ClientKey)
	serverKey  []byte // HMAC(SaltedPassword, "Server Key")
}

// newSCRAMVerifier derives the verifier of password with a random salt.
func newSCRAMVerifier(password string) (*scramVerifier, error) {
	salt := make([]byte, scramSaltLen)
	rand.Read(salt)
	return scramVerifierFor(password, salt, scramIterations)
}

func scramVerifierFor(password string, salt []byte, iterations int) (*scramVerifier, error) {
	salted, err := pbkdf2.Key(sha256.New, saslPrep(password), salt, iterations, sha256.Size)
	if err != nil {
		return nil, fmt.Errorf("pgwire: deriving the SCRAM verifier: %w", err)
	}
	clientKey := hmacSHA256(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	return &scramVerifier{salt: salt, iterations: iterations, storedKey: stored[:],
		serverKey: hmacSHA256(salted, "Server Key")}, nil
}

// saslPrep normalizes a password as PostgreSQL's pg_saslprep does (and
// pgx and libpq on the client side): ASCII passes unchanged; otherwise the
// SASLprep profile (PRECIS OpaqueString), falling back to the raw bytes when
// the password is not valid for it.
func saslPrep(password string) string {
	for i := 0; i < len(password); i++ {
		if password[i] >= 0x80 {
			if p, err := precis.OpaqueString.String(password); err == nil {
				return p
			}
			return password
		}
	}
	return password
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// scramAuth authenticates every user against one password's verifier. A
// server whose verifier could not be derived (err) admits nobody.
type scramAuth struct {
	v   *scramVerifier
	err error
}

func newSCRAMAuth(password string) scramAuth {
	v, err := newSCRAMVerifier(password)
	return scramAuth{v: v, err: err}
}

func (a scramAuth) authenticate(c *conn, user, _ string) error {
	if a.err != nil {
		return a.err
	}
	ex := &scramExchange{v: a.v, user: user, certHash: c.certHash}
	mechanisms := []string{scramMechanism}
	if c.certHash != nil {
		mechanisms = []string{scramPlus, scramMechanism}
	}
	c.send(&pgproto3.AuthenticationSASL{AuthMechanisms: mechanisms})
	c.be.SetAuthType(pgproto3.AuthTypeSASL)
	defer c.be.SetAuthType(pgproto3.AuthTypeOk)
	initial, err := receiveSASL[*pgproto3.SASLInitialResponse](c)
	if err != nil {
		return err
	}
	switch {
	case initial.AuthMechanism == scramMechanism:
	case initial.AuthMechanism == scramPlus && c.certHash != nil:
		ex.plus = true
	default:
		return pgerr.New(pgerr.ProtocolViolation, "client selected an invalid SASL authentication mechanism")
	}
	serverFirst, err := ex.clientFirst(string(initial.Data))
	if err != nil {
		return err
	}
	c.send(&pgproto3.AuthenticationSASLContinue{Data: []byte(serverFirst)})
	c.be.SetAuthType(pgproto3.AuthTypeSASLContinue)
	final, err := receiveSASL[*pgproto3.SASLResponse](c)
	if err != nil {
		return err
	}
	serverFinal, err := ex.clientFinal(string(final.Data))
	if err != nil {
		return err
	}
	c.send(&pgproto3.AuthenticationSASLFinal{Data: []byte(serverFinal)})
	c.send(&pgproto3.AuthenticationOk{})
	return nil
}

// receiveSASL flushes what is queued and reads the client's next message,
// which must be an M.
func receiveSASL[M pgproto3.FrontendMessage](c *conn) (M, error) {
	var zero M
	if err := c.flush(); err != nil {
		return zero, err
	}
	msg, err := c.be.Receive()
	if err != nil {
		if isIOError(err) {
			return zero, err
		}
		return zero, pgerr.Wrap(err, pgerr.ProtocolViolation, "invalid SASL response")
	}
	m, ok := msg.(M)
	if !ok {
		return zero, pgerr.New(pgerr.ProtocolViolation, "expected SASL response, got %T", msg)
	}
	return m, nil
}

// scramExchange is the server's side of one SCRAM exchange: clientFirst
// then clientFinal, each returning the message to answer with.
type scramExchange struct {
	v    *scramVerifier
	user string
	// certHash is the channel's binding data (nil: no TLS, no -PLUS
	// offered); plus: the client chose SCRAM-SHA-256-PLUS.
	certHash []byte
	plus     bool

	serverNonce string // set by tests; random otherwise

	gs2Header   string // "n,,", "y,," or "p=tls-server-end-point,,"
	clientBare  string // client-first-message-bare
	serverFirst string
	nonce       string // client nonce + server nonce
}

// clientFirst reads the client-first-message and returns the
// server-first-message.
func (ex *scramExchange) clientFirst(msg string) (string, error) {
	var rest string
	switch {
	case ex.plus && !strings.HasPrefix(msg, "p="):
		return "", malformedSCRAM("The client selected SCRAM-SHA-256-PLUS, but the SCRAM message does not include channel binding data.")
	case strings.HasPrefix(msg, "n,"):
		rest = msg[2:]
	case strings.HasPrefix(msg, "y,"):
		// The client could bind the channel but thinks we cannot: right
		// unless we offered -PLUS, when someone must have taken it out of
		// the offer on the way.
		if ex.certHash != nil {
			e := pgerr.New(pgerr.ProtocolViolation, "SCRAM channel binding negotiation error")
			e.Detail = "The client supports SCRAM channel binding but thinks the server does not.  However, this server does support channel binding."
			return "", e
		}
		rest = msg[2:]
	case strings.HasPrefix(msg, "p="):
		if !ex.plus {
			return "", malformedSCRAM("The client selected SCRAM-SHA-256 without channel binding, but the SCRAM message includes channel binding data.")
		}
		cbind, after, ok := strings.Cut(msg[2:], ",")
		if !ok {
			return "", malformedSCRAM("Comma expected after the channel binding type.")
		}
		if cbind != scramCBindType {
			return "", malformedSCRAM(fmt.Sprintf("Unsupported SCRAM channel-binding type \"%s\".", cbind))
		}
		rest = after
	default:
		return "", malformedSCRAM("Unexpected channel-binding flag.")
	}
	authzid, bare, ok := strings.Cut(rest, ",")
	switch {
	case !ok:
		return "", malformedSCRAM("Comma expected after the authorization identity.")
	case authzid != "":
		return "", pgerr.New(pgerr.FeatureNotSupported, "client uses authorization identity, but it is not supported")
	}
	attrs := strings.Split(bare, ",")
	if strings.HasPrefix(bare, "m=") {
		return "", pgerr.New(pgerr.FeatureNotSupported, "client requires an unsupported SCRAM extension")
	}
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "n=") {
		return "", malformedSCRAM("Expected attribute \"n\".")
	}
	clientNonce, ok := strings.CutPrefix(attrs[1], "r=")
	if !ok || clientNonce == "" || !printableNonce(clientNonce) {
		return "", malformedSCRAM("Expected attribute \"r\" with a printable nonce.")
	}
	serverNonce := ex.serverNonce
	if serverNonce == "" {
		b := make([]byte, scramNonceLen)
		rand.Read(b)
		serverNonce = base64.StdEncoding.EncodeToString(b)
	}
	ex.gs2Header = msg[:len(msg)-len(bare)]
	ex.clientBare = bare
	ex.nonce = clientNonce + serverNonce
	ex.serverFirst = fmt.Sprintf("r=%s,s=%s,i=%d", ex.nonce, base64.StdEncoding.EncodeToString(ex.v.salt), ex.v.iterations)
	return ex.serverFirst, nil
}

// printableNonce reports whether s is a valid nonce: printable ASCII
// without a comma (RFC 5802 §7).
func printableNonce(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e || s[i] == ',' {
			return false
		}
	}
	return true
}

// clientFinal checks the client-final-message's proof and returns the
// server-final-message.
func (ex *scramExchange) clientFinal(msg string) (string, error) {
	i := strings.LastIndex(msg, ",p=")
	if i < 0 {
		return "", malformedSCRAM("Could not find proof in client-final-message.")
	}
	withoutProof := msg[:i]
	proof, err := base64.StdEncoding.DecodeString(msg[i+3:])
	if err != nil || len(proof) != sha256.Size {
		return "", malformedSCRAM("Malformed proof in client-final-message.")
	}
	attrs := strings.Split(withoutProof, ",")
	cbind := []byte(ex.gs2Header)
	if ex.plus {
		cbind = append(cbind, ex.certHash...)
	}
	if len(attrs) < 2 || attrs[0] != "c="+base64.StdEncoding.EncodeToString(cbind) {
		return "", pgerr.New(pgerr.ProtocolViolation, "SCRAM channel binding check failed")
	}
	if attrs[1] != "r="+ex.nonce {
		return "", malformedSCRAM("Nonce does not match.")
	}
	authMessage := ex.clientBare + "," + ex.serverFirst + "," + withoutProof
	clientKey := hmacSHA256(ex.v.storedKey, authMessage)
	subtle.XORBytes(clientKey, clientKey, proof)
	stored := sha256.Sum256(clientKey)
	if subtle.ConstantTimeCompare(stored[:], ex.v.storedKey) != 1 {
		return "", pgerr.New(codeInvalidPass, "password authentication failed for user \"%s\"", ex.user)
	}
	return "v=" + base64.StdEncoding.EncodeToString(hmacSHA256(ex.v.serverKey, authMessage)), nil
}

func malformedSCRAM(detail string) error {
	e := pgerr.New(pgerr.ProtocolViolation, "malformed SCRAM message")
	e.Detail = detail
	return e
}
