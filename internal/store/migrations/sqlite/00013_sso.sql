-- +goose Up
-- Single sign-on (docs/decisions.md, D50): an account signs in through an
-- OpenID Connect provider as the identity (issuer, subject) names, never by
-- the address alone. An account has at most one identity per provider, and
-- an identity belongs to one account. email is the address the provider
-- vouched for when the link was made, for the admin pages.
CREATE TABLE user_identities (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    issuer     TEXT    NOT NULL,
    subject    TEXT    NOT NULL,
    email      TEXT    NOT NULL,
    created_at BIGINT  NOT NULL
);
CREATE UNIQUE INDEX user_identities_subject ON user_identities(issuer, subject);
CREATE UNIQUE INDEX user_identities_user ON user_identities(user_id, issuer);

-- +goose Down
DROP TABLE user_identities;
