#!/usr/bin/env python3
"""Cross-checks BleuWire's CBOR codec against Python's cbor2 (an independent implementation).

Reads one JSON request on standard input and writes one JSON answer on standard output:

  {"mode": "decode", "items": ["<hex>", ...]}
      cbor2 decodes each item; answers {"results": [{"description": D, "reencoded": "<hex>"}]}
      where D describes the decoded value and "reencoded" is cbor2's own encoding of it
      (or {"error": "..."} for an item cbor2 rejects).

  {"mode": "generate", "seed": N, "count": K}
      Generates K random values from a seeded generator, encodes each with cbor2 and answers
      {"results": [{"hex": "<hex>", "description": D}]}.

  {"mode": "records", "seed": N, "count": K}
      Like generate, but each value is a map with the fixed shape of the Swift test's `Record`.

D is the description both sides compute independently: integers in decimal, floats as the bits
of their double value ("nan" for any NaN), text and byte strings as hex, arrays in order, map
entries sorted by their description (Swift dictionaries have no stable order).
"""
import collections.abc
import json
import random
import struct
import sys

import cbor2


def describe(value):
    if value is None:
        return "null"
    if value is cbor2.undefined:
        return "undefined"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if value != value else "f" + struct.pack(">d", value).hex()
    if isinstance(value, str):
        return "t'" + value.encode("utf-8").hex() + "'"
    if isinstance(value, (bytes, bytearray)):
        return "h'" + bytes(value).hex() + "'"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(describe(v) for v in value) + "]"
    if isinstance(value, collections.abc.Mapping):  # dict, or cbor2's frozendict
        entries = sorted(describe(k) + ":" + describe(v) for k, v in value.items())
        return "{" + ",".join(entries) + "}"
    if isinstance(value, cbor2.CBORSimpleValue):
        return "simple(%d)" % value.value
    if isinstance(value, cbor2.CBORTag):
        return "tag(%d,%s)" % (value.tag, describe(value.value))
    if hasattr(value, "timestamp"):  # tag 1 arrives as a datetime
        return "datetime:%d" % round(value.timestamp())
    raise TypeError("no description for %r" % type(value))


def random_text(rng):
    alphabet = "abcXYZ 019\"\\\n\u00e9\u6c34\U00010151\u0000"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))


def random_float(rng):
    kind = rng.randint(0, 3)
    if kind == 0:  # any double, by its bits
        bits = rng.getrandbits(64)
        value = struct.unpack(">d", struct.pack(">Q", bits))[0]
        return 0.5 if value != value else value
    if kind == 1:
        return struct.unpack(">f", struct.pack(">I", rng.getrandbits(31)))[0]
    return rng.choice([0.0, -0.0, 1.0, 1.5, 65504.0, float("inf"), float("-inf"), 1e-300, 0.1])


def random_int(rng):
    bits = rng.choice([0, 4, 5, 8, 9, 16, 17, 32, 33, 63, 64, 65, 100, 119])
    n = rng.getrandbits(bits) if bits else 0
    return -n - 1 if rng.random() < 0.5 else n


def random_value(rng, depth):
    kinds = 11 if depth > 0 else 8
    kind = rng.randrange(kinds)
    if kind == 0:
        return random_int(rng)
    if kind == 1:
        return random_float(rng)
    if kind == 2:
        return random_text(rng)
    if kind == 3:
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 20)))
    if kind == 4:
        return rng.choice([None, True, False, cbor2.undefined])
    if kind == 5:
        return cbor2.CBORSimpleValue(rng.choice([0, 5, 19, 32, 200, 255]))
    if kind == 6:
        return random_int(rng) % (2**64)
    if kind == 7:
        return rng.choice(["", "a", "IETF"])
    if kind == 8:
        return [random_value(rng, depth - 1) for _ in range(rng.randint(0, 5))]
    if kind == 9:
        keys = {}
        for _ in range(rng.randint(0, 5)):
            key = rng.choice([random_text(rng), random_int(rng) % 1000])
            keys[key] = random_value(rng, depth - 1)
        return keys
    return cbor2.CBORTag(rng.choice([60000, 61234, 2**32 + 7]), random_value(rng, depth - 1))


def random_record(rng):
    # The Swift test's `Record`, field for field, in declaration order.
    record = {
        "name": random_text(rng),
        "count": random_int(rng) % (2**63) * rng.choice([1, -1]),
        "ratio": random_float(rng),
        "blob": bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 30))),
        "tags": [random_text(rng) for _ in range(rng.randint(0, 4))],
        "flags": {random_text(rng): rng.random() < 0.5 for _ in range(rng.randint(0, 4))},
    }
    if rng.random() < 0.5:
        record["note"] = random_text(rng)
    return record


def main():
    request = json.load(sys.stdin)
    mode = request["mode"]
    results = []
    if mode == "decode":
        for item in request["items"]:
            try:
                value = cbor2.loads(bytes.fromhex(item))
                results.append({"description": describe(value), "reencoded": cbor2.dumps(value).hex()})
            except Exception as error:  # report, the Swift side asserts on it
                results.append({"error": "%s: %s" % (type(error).__name__, error)})
    elif mode in ("generate", "records"):
        rng = random.Random(request["seed"])
        for _ in range(request["count"]):
            value = random_value(rng, 3) if mode == "generate" else random_record(rng)
            encoded = cbor2.dumps(value, canonical=rng.random() < 0.3)
            results.append({"hex": encoded.hex(), "description": describe(cbor2.loads(encoded))})
    else:
        raise SystemExit("unknown mode %r" % mode)
    json.dump({"cbor2": cbor2.__name__, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
