package mcpconn

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// assertionSigner signs the client assertions of private_key_jwt client
// authentication (RFC 7523 §2.2 and §3) with github.com/golang-jwt/jwt/v5.
type assertionSigner struct {
	key    crypto.Signer
	method jwt.SigningMethod
}

// newAssertionSigner parses a PEM private key (PKCS #8, SEC 1 or PKCS #1)
// and picks the algorithm its type implies. Errors never quote the key.
func newAssertionSigner(pemText string) (*assertionSigner, error) {
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		return nil, errors.New("the private key is not PEM")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, errors.New("the private key cannot be parsed (want PKCS #8, SEC 1 EC or PKCS #1 RSA PEM)")
	}
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return &assertionSigner{key: k, method: jwt.SigningMethodES256}, nil
		case elliptic.P384():
			return &assertionSigner{key: k, method: jwt.SigningMethodES384}, nil
		case elliptic.P521():
			return &assertionSigner{key: k, method: jwt.SigningMethodES512}, nil
		}
		return nil, errors.New("the private key's curve is not P-256, P-384 or P-521")
	case *rsa.PrivateKey:
		return &assertionSigner{key: k, method: jwt.SigningMethodRS256}, nil
	case ed25519.PrivateKey:
		return &assertionSigner{key: k, method: jwt.SigningMethodEdDSA}, nil
	}
	return nil, errors.New("the private key is not ECDSA, RSA or Ed25519")
}

// sign returns a client assertion: iss and sub the client ID, aud the
// authorization server, a random jti, valid for five minutes.
func (s *assertionSigner) sign(clientID, audience string) (string, error) {
	var jti [16]byte
	if _, err := rand.Read(jti[:]); err != nil {
		return "", err
	}
	now := time.Now()
	claims := jwt.RegisteredClaims{
		Issuer:    clientID,
		Subject:   clientID,
		Audience:  jwt.ClaimStrings{audience},
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now.Add(-time.Minute)),
		ExpiresAt: jwt.NewNumericDate(now.Add(5 * time.Minute)),
		ID:        base64.RawURLEncoding.EncodeToString(jti[:]),
	}
	signed, err := jwt.NewWithClaims(s.method, claims).SignedString(s.key)
	if err != nil {
		return "", errors.New("signing the client assertion failed")
	}
	return signed, nil
}
