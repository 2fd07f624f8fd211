# Produces lockbox_vectors.json: ciphertexts made by the Lockbox gem the way
# Password Pusher's models store them (has_encrypted, default options), so
# the Go decryptor in this package is checked against the real library.
#
# Usage: ruby -I<lockbox checkout>/lib gen.rb > lockbox_vectors.json
require "json"
require "lockbox"

CURRENT = "0c5b7e2f9a4d61835f2e0b7c94a1d3e6f8b2c4a6d8e0f1a3b5c7d9e1f3a5b7c9"
PREVIOUS = "a1b2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccddeeff00"
DEFAULT = "749b1022e1cb83fb04f3022eacaf3bfef60c6d47f83e6fb41f534a05fc69929f"

LONG = (0...600).map { |i| "line #{i}: #{"x" * (i % 17)}é\n" }.join

PLAINTEXTS = {
  "ascii" => "correct horse battery staple",
  "utf8" => "pässwörd 🔑 秘密 — ünïcødé\nsecond line\ttab",
  "empty" => "",
  "long" => LONG,
  "url" => "https://example.com/path?q=1&r=%20",
}.freeze

COLUMNS = [
  ["pushes", "payload_ciphertext"],
  ["pushes", "note_ciphertext"],
  ["pushes", "passphrase_ciphertext"],
  ["users", "otp_secret_ciphertext"],
].freeze

# The box a model attribute gets: Lockbox::Utils.build_box with the options
# has_encrypted leaves after removing its bookkeeping keys (encode: true).
def box(master, table, column, previous: nil)
  Lockbox.master_key = master
  Lockbox.default_options = previous ? {previous_versions: previous.map { |k| {master_key: k} }} : {}
  Lockbox::Utils.build_box(nil, {encode: true}, table, column)
end

vectors = []
{"current" => CURRENT, "previous" => PREVIOUS, "default" => DEFAULT}.each do |which, master|
  COLUMNS.each do |table, column|
    PLAINTEXTS.each do |name, text|
      next if (table == "users" || which == "default") && name != "ascii"
      next if name == "long" && column != "payload_ciphertext"
      ct = box(master, table, column).encrypt(text)
      # Check the round trip the way the running application would read it:
      # current key first, then the previous keys.
      reader = box(CURRENT, table, column, previous: [PREVIOUS])
      if which != "default" && reader.decrypt_str(ct) != text
        raise "round trip failed for #{table}.#{column} #{name}"
      end
      vectors << {
        "key" => which, "table" => table, "column" => column, "name" => name,
        "plaintext" => text, "ciphertext" => ct,
      }
    end
  end
end

keys = []
{"current" => CURRENT, "previous" => PREVIOUS, "default" => DEFAULT}.each do |which, master|
  COLUMNS.each do |table, column|
    keys << {
      "key" => which, "table" => table, "column" => column,
      "derived" => Lockbox.attribute_key(table: table, attribute: column, master_key: master),
    }
  end
end

puts JSON.pretty_generate({
  "lockbox_version" => Lockbox::VERSION,
  "ruby_version" => RUBY_VERSION,
  "master_keys" => {"current" => CURRENT, "previous" => PREVIOUS, "default" => DEFAULT},
  "derived_keys" => keys,
  "vectors" => vectors,
})
