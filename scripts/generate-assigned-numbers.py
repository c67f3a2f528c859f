#!/usr/bin/env python3
"""Generates BleuCore's name tables from the Bluetooth assigned-numbers data.

Usage:
    scripts/generate-assigned-numbers.py [DATA_DIR] [--output DIR]

DATA_DIR holds Nordic Semiconductor's bluetooth-numbers-database JSON files
(service_uuids.json, characteristic_uuids.json, descriptor_uuids.json, company_ids.json,
gap_appearance.json); by default ../shared/data/bluetooth-numbers beside the repository.
The Swift source goes to Sources/BleuCore/AssignedNumbers/Generated (or DIR): commit it,
not the data. The output is deterministic (sorted, no dates), so running the script again on
the same data changes nothing; BleuCoreTests check that it does not.

What goes in:
  * UUIDs: every 16-bit entry the SIG assigns -- source "gss" (the GATT Specification
    Supplement's services, characteristics and descriptors) and the 16-bit UUIDs the SIG gives
    its members (0xFC00-0xFEFF), whatever the source. Vendors' 128-bit UUIDs and vendors'
    16-bit aliases outside the member range are left out: they are not assigned numbers, and
    a 16-bit alias may mean something else on another device.
  * A short supplement of SIG names the data lacks (SUPPLEMENT below), kept in a table of its
    own so the data's tables stay exactly the data.
  * Every company identifier, and every appearance category and subcategory.

Each table is a sorted key array and one multi-line string literal of names, one a line:
cheap for the compiler (integer literals and one string) and for the program (nothing is
built until a table is first used, then one pass over the text).

Python 3 standard library only.
"""

import argparse
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DATA = os.path.join(REPO, "..", "shared", "data", "bluetooth-numbers")
DEFAULT_OUTPUT = os.path.join(REPO, "Sources", "BleuCore", "AssignedNumbers", "Generated")

# SIG-assigned 16-bit UUIDs the data does not list: the GATT declarations (Core Spec Vol 3
# Part G §3) and the GAP's Encrypted Data Key Material characteristic (Core Spec 5.4 Vol 3
# Part C §12.6). An entry the data comes to list is taken from the data instead.
SUPPLEMENT = {
    0x2800: "Primary Service",
    0x2801: "Secondary Service",
    0x2802: "Include",
    0x2803: "Characteristic",
    0x2B88: "Encrypted Data Key Material",
}

MEMBER_UUIDS = range(0xFC00, 0xFF00)

LICENCE = """\
// The names come from Nordic Semiconductor's bluetooth-numbers-database
// (https://github.com/NordicSemiconductor/bluetooth-numbers-database), under this licence:
//
// Copyright (c) 2019 - 2020, Nordic Semiconductor ASA
// All rights reserved.
//
// Redistribution and use in source and binary forms, with or without modification, are
// permitted provided that the following conditions are met:
//
// 1. Redistributions of source code must retain the above copyright notice, this list of
//    conditions and the following disclaimer.
//
// 2. Redistributions in binary form must reproduce the above copyright notice, this list of
//    conditions and the following disclaimer in the documentation and/or other materials
//    provided with the distribution.
//
// 3. Neither the name of Nordic Semiconductor ASA nor the names of its contributors may be
//    used to endorse or promote products derived from this software without specific prior
//    written permission.
//
// THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS
// OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF
// MERCHANTABILITY, AND FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL
// NORDIC SEMICONDUCTOR ASA OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL,
// SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF
// SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION)
// HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR
// TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS
// SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
"""


def fail(message):
    sys.exit(f"generate-assigned-numbers: {message}")


def load(data, name):
    path = os.path.join(data, name)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as error:
        fail(f"cannot read {name}: {error}")


def add(table, key, name, what):
    """Adds key: name, failing on an empty name or on one key with two names."""
    if not isinstance(name, str) or not name.strip() or "\n" in name or "\r" in name:
        fail(f"{what} {key:#06x}: unusable name {name!r}")
    if table.get(key, name) != name:
        fail(f"{what} {key:#06x} has two names: {table[key]!r} and {name!r}")
    table[key] = name


def uuid_table(data, file, what):
    table = {}
    for entry in load(data, file):
        text = entry["uuid"]
        if len(text) != 4:
            continue  # a vendor's 128-bit UUID
        value = int(text, 16)
        if entry.get("source") != "gss" and value not in MEMBER_UUIDS:
            continue  # a vendor's alias, not an assigned number
        add(table, value, entry["name"], what)
    return table


def literal_line(name):
    """One line of a multi-line string literal: ASCII, with escapes."""
    out = []
    for ch in name:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif 0x20 <= ord(ch) < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\u{{{ord(ch):X}}}")
    line = "".join(out)
    # Leading and trailing blanks would be lost to the literal's indentation or to editors.
    if line != line.strip(" "):
        line = line.replace(" ", "\\u{20}")
    return line


def table_source(name, doc, table, key_digits=4):
    keys = sorted(table)
    lines = [f"    /// {line}" if line else "    ///" for line in doc]
    lines.append(f"    static let {name} = AssignedNameTable(")
    lines.append("        keys: [")
    per_line = 10
    for start in range(0, len(keys), per_line):
        chunk = keys[start:start + per_line]
        lines.append("            " + " ".join(f"0x{key:0{key_digits}X}," for key in chunk))
    lines.append("        ],")
    lines.append('        names: """')
    for key in keys:
        lines.append("            " + literal_line(table[key]))
    lines.append('            """)')
    return "\n".join(lines)


def file_source(summary, tables):
    header = [
        "// Generated by scripts/generate-assigned-numbers.py; do not edit. Run the script again",
        "// to change it (see the script for what it takes from the data).",
        "//",
        f"// {summary}",
        "//",
    ]
    body = "\n\n".join(tables)
    return "\n".join(header) + "\n" + LICENCE + "\nextension AssignedNames {\n" + body + "\n}\n"


def main():
    parser = argparse.ArgumentParser(description="Generate BleuCore's assigned-number name tables.")
    parser.add_argument("data", nargs="?", default=DEFAULT_DATA,
                        help="the bluetooth-numbers data directory (default: ../shared/data/bluetooth-numbers)")
    parser.add_argument("--output", default=DEFAULT_OUTPUT,
                        help="where to write the Swift files (default: Sources/BleuCore/AssignedNumbers/Generated)")
    args = parser.parse_args()
    if not os.path.isdir(args.data):
        fail(f"no data directory at {args.data}")

    services = uuid_table(args.data, "service_uuids.json", "service")
    characteristics = uuid_table(args.data, "characteristic_uuids.json", "characteristic")
    descriptors = uuid_table(args.data, "descriptor_uuids.json", "descriptor")
    listed = set(services) | set(characteristics) | set(descriptors)
    supplement = {key: name for key, name in SUPPLEMENT.items() if key not in listed}

    companies = {}
    for entry in load(args.data, "company_ids.json"):
        code = entry["code"]
        if not 0 <= code <= 0xFFFF:
            fail(f"company identifier {code} does not fit 16 bits")
        add(companies, code, entry["name"], "company")

    categories, subcategories = {}, {}
    for entry in load(args.data, "gap_appearance.json"):
        category = entry["category"]
        if not 0 <= category < 1 << 10:
            fail(f"appearance category {category} does not fit 10 bits")
        add(categories, category, entry["name"], "appearance category")
        for sub in entry.get("subcategory", []):
            if not 0 < sub["value"] < 1 << 6:
                fail(f"appearance subcategory {sub['value']} of category {category} does not fit 6 bits")
            add(subcategories, category << 6 | sub["value"], sub["name"], "appearance")

    def uuid_doc(count, kind, file):
        return [f"The SIG's {count} 16-bit {kind} UUIDs and their names, from the data's {file}."]

    files = {
        "UUIDNames.swift": file_source(
            f"{len(services)} services, {len(characteristics)} characteristics, {len(descriptors)} descriptors, "
            f"{len(supplement)} supplementary names.",
            [
                table_source("services", uuid_doc(len(services), "service", "service_uuids.json"), services),
                table_source("characteristics", uuid_doc(len(characteristics), "characteristic",
                                                         "characteristic_uuids.json"), characteristics),
                table_source("descriptors", uuid_doc(len(descriptors), "descriptor", "descriptor_uuids.json"),
                             descriptors),
                table_source("supplement", [
                    f"{len(supplement)} SIG-assigned 16-bit UUIDs the data does not list: the GATT declarations",
                    "(Core Spec Vol 3 Part G §3) and Encrypted Data Key Material (Core Spec Vol 3 Part C §12.6).",
                ], supplement),
            ]),
        "CompanyNames.swift": file_source(
            f"{len(companies)} company identifiers.",
            [table_source("companies", [f"The {len(companies)} company identifiers of manufacturer data and their names,",
                                        "from the data's company_ids.json."], companies)]),
        "AppearanceNames.swift": file_source(
            f"{len(categories)} appearance categories, {len(subcategories)} subcategories.",
            [
                table_source("appearanceCategories", [
                    f"The {len(categories)} appearance categories (bits 15-6 of an appearance value) and their names,",
                    "from the data's gap_appearance.json.",
                ], categories, key_digits=3),
                table_source("appearanceSubcategories", [
                    f"The {len(subcategories)} appearance subcategories, keyed by the whole appearance value",
                    "(category << 6 | subcategory), and their names, from the data's gap_appearance.json.",
                ], subcategories),
            ]),
    }
    os.makedirs(args.output, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(args.output, name), "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    print(f"wrote {', '.join(sorted(files))} to {os.path.relpath(args.output)}")


if __name__ == "__main__":
    main()
