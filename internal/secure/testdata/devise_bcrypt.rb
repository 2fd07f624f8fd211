# Produces devise_bcrypt.json: password hashes made by the bcrypt gem the way
# Devise's database_authenticatable stores users.encrypted_password (no
# pepper, as Password Pusher configures it: BCrypt::Password.create(password,
# cost: stretches)), so that Hush's check of imported hashes is tested
# against the real library.
#
# Usage: ruby devise_bcrypt.rb > devise_bcrypt.json
require "bcrypt"
require "json"

PASSWORDS = {
  "ascii" => "alice's password",
  "utf8" => "pässwörd 🔑 秘密",
  "min" => "12345678",
  "exactly72" => "a" * 72,
  # bcrypt reads at most 72 bytes: Ruby's and Go's must agree on that.
  "long" => ("x" * 71) + "yz and more",
}.freeze

vectors = []
PASSWORDS.each do |name, pw|
  [4, 5].each do |cost|
    hash = BCrypt::Password.create(pw, cost: cost)
    raise "round trip failed for #{name}" unless BCrypt::Password.new(hash) == pw
    vectors << {"name" => name, "password" => pw, "cost" => cost, "hash" => hash.to_s}
  end
end
# Password Pusher's production cost (config.stretches = 12).
prod = BCrypt::Password.create(PASSWORDS["ascii"], cost: 12)
vectors << {"name" => "ascii", "password" => PASSWORDS["ascii"], "cost" => 12, "hash" => prod.to_s}
# The prefix a long password shares with "long" opens its hash too.
long = vectors.find { |v| v["name"] == "long" }
raise "72-byte rule" unless BCrypt::Password.new(long["hash"]) == ("x" * 71) + "y"

puts JSON.pretty_generate({
  "bcrypt_gem_version" => Gem.loaded_specs["bcrypt"]&.version&.to_s || `dpkg-query -W -f='${Version}' ruby-bcrypt`,
  "ruby_version" => RUBY_VERSION,
  "vectors" => vectors,
})
