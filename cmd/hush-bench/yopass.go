package main

import (
	"encoding/base64"
	"strings"
)

// Yopass (the -dialect yopass of `hush-bench run`) encrypts in the client:
// its server stores an OpenPGP message it never decrypts, and accepts it only
// as a well-formed ASCII-armored "PGP MESSAGE" block. Its API:
//
//	POST /create/secret {"message": ARMOR, "expiration": 3600, "one_time": BOOL} → 200 {"message": KEY}
//	GET  /secret/KEY → 200 {"expiration": 3600, "message": ARMOR, "one_time": BOOL}
//
// A one-time secret is deleted by its first GET; any other one can be read
// until it expires. GET /ready answers 200 once its database answers.

// pgpMessage returns an ASCII-armored OpenPGP message (RFC 4880, sections
// 4.2, 5.3, 5.13 and 6) of the shape a client encrypting n bytes of text with
// a password sends: a symmetric-key encrypted session key packet (AES-256,
// iterated and salted S2K with SHA-256), then a symmetrically encrypted
// integrity-protected data packet as long as one holding the encrypted
// literal data packet of the n bytes and its modification detection code.
// The bytes after the packet headers stand in for ciphertext (a fixed
// pseudo-random sequence): only the armor is checked by the server. The body
// is wrapped at 64 characters and followed by its CRC-24 checksum line.
func pgpMessage(n int) string {
	const (
		ivAndCheck = 16 + 2 // AES block of random prefix, then its last two bytes again
		mdcPacket  = 2 + 20 // tag 19, length 20, SHA-1
	)
	literal := 1 + 1 + 4 + n // format, empty file name, date, data
	seipd := 1 + ivAndCheck + 1 + len(packetLength(literal)) + literal + mdcPacket

	var b []byte
	salt := []byte{0x5a, 0x17, 0xc3, 0x2e, 0x91, 0x08, 0x6d, 0xf4}
	b = append(b, 0xc0|3, 13, 4, 9, 3, 8) // SKESK: new format tag 3, v4, AES-256, iterated+salted S2K, SHA-256
	b = append(b, salt...)
	b = append(b, 0xe0)                                                      // S2K count
	b = append(append(append(b, 0xc0|18), packetLength(seipd)...), 1)        // SEIPD: new format tag 18, v1
	b = append(b, pseudoRandom(seipd-1, uint32(n)*2654435761+0x9e3779b9)...) // the encrypted part

	enc := base64.StdEncoding.EncodeToString(b)
	var s strings.Builder
	s.WriteString("-----BEGIN PGP MESSAGE-----\n\n")
	for len(enc) > 64 {
		s.WriteString(enc[:64])
		s.WriteByte('\n')
		enc = enc[64:]
	}
	s.WriteString(enc)
	crc := crc24(b)
	s.WriteString("\n=")
	s.WriteString(base64.StdEncoding.EncodeToString([]byte{byte(crc >> 16), byte(crc >> 8), byte(crc)}))
	s.WriteString("\n-----END PGP MESSAGE-----\n")
	return s.String()
}

// packetLength encodes a new-format packet body length (RFC 4880, 4.2.2).
func packetLength(n int) []byte {
	switch {
	case n < 192:
		return []byte{byte(n)}
	case n < 8384:
		n -= 192
		return []byte{byte(n>>8) + 192, byte(n)}
	default:
		return []byte{255, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
	}
}

// pseudoRandom returns n bytes of a xorshift sequence from seed: the same
// bytes for the same arguments.
func pseudoRandom(n int, seed uint32) []byte {
	x := seed | 1
	b := make([]byte, n)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x >> 11)
	}
	return b
}

// crc24 is the checksum of OpenPGP's armor (RFC 4880, 6.1).
func crc24(data []byte) uint32 {
	const (
		crc24Init = 0xb704ce
		crc24Poly = 0x1864cfb
	)
	crc := uint32(crc24Init)
	for _, d := range data {
		crc ^= uint32(d) << 16
		for range 8 {
			crc <<= 1
			if crc&0x1000000 != 0 {
				crc ^= crc24Poly
			}
		}
	}
	return crc & 0xffffff
}
