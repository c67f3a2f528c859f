#!/usr/bin/env python3
"""Decodes GATT characteristic values with an independent implementation, the PyPI package
bluetooth-sig, for BleuGATT's cross-check test (Tests/BleuGATTTests/ReferenceCrossCheckTests).

Reads one JSON object a line on standard input, {"kind": "<characteristic module>", "hex": "..."},
and prints one JSON object a line: {"value": [integers], "rebuilt": "<hex>"} with the decoded
fields flattened to integers (in the order the Swift test expects) and the library's own
re-encoding of what it decoded, or {"error": "..."}.

    pip install bluetooth-sig==0.6.0
"""
import importlib
import inspect
import json
import sys


def characteristic(kind):
    module = importlib.import_module("bluetooth_sig.gatt.characteristics." + kind)
    classes = [value for name, value in vars(module).items()
               if inspect.isclass(value) and name.endswith("Characteristic") and value.__module__ == module.__name__]
    return classes[0]()


def flatten(kind, value):
    """The decoded value as a list of integers; absent optional fields are -1."""
    if kind == "heart_rate_measurement":
        return ([value.heart_rate, int(value.sensor_contact),
                 -1 if value.energy_expended is None else value.energy_expended]
                + [round(seconds * 1024) for seconds in value.rr_intervals])
    if kind == "current_time":
        t = value.date_time
        return [t.year, t.month, t.day, t.hour, t.minute, t.second,
                int(value.day_of_week), value.fractions256, int(value.adjust_reason)]
    if kind == "date_time":
        return [value.year, value.month, value.day, value.hour, value.minute, value.second]
    if kind == "system_id":
        return [int.from_bytes(value.manufacturer_id, "little"), int.from_bytes(value.oui, "little")]
    if kind == "pnp_id":
        return [int(value.vendor_id_source), value.vendor_id, value.product_id, value.product_version]
    if kind in ("temperature", "humidity"):
        return [round(value * 100)]
    if kind == "pressure":
        return [round(value * 10)]
    return [int(value)]


def main():
    cache = {}
    for line in sys.stdin:
        request = json.loads(line)
        kind = request["kind"]
        try:
            decoder = cache.setdefault(kind, characteristic(kind))
            value = decoder.parse_value(bytearray.fromhex(request["hex"]))
            answer = {"value": flatten(kind, value), "rebuilt": bytes(decoder.build_value(value)).hex()}
        except Exception as error:  # report every failure to the test, which decides
            answer = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(answer), flush=False)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
