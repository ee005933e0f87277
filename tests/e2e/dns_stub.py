#!/usr/bin/env python3
"""dns_stub.py ADDR PORT NAME=IPV4... -- a test DNS server over UDP for the proxy lab.

Answers an A query for a listed NAME (lowercase, without the final dot) with its address,
an AAAA query for it with no records, never answers a name starting with "slow" (a server
that does not answer: the resolver times out), and NXDOMAIN for anything else. Each query is
appended to $DNS_LOG as "TYPE name". Prints "ready" once it listens.
"""
import os
import socket
import struct
import sys


def qname(data, off):
    labels = []
    while data[off]:
        n = data[off]
        labels.append(data[off + 1:off + 1 + n])
        off += 1 + n
    return labels, off + 1


def main():
    names = dict(a.split("=", 1) for a in sys.argv[3:])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((sys.argv[1], int(sys.argv[2])))
    print("ready", flush=True)
    log = os.environ.get("DNS_LOG")
    while True:
        data, peer = s.recvfrom(4096)
        try:
            labels, end = qname(data, 12)
            qtype = struct.unpack("!H", data[end:end + 2])[0]
        except (IndexError, struct.error):
            continue
        name = b".".join(labels).decode("latin-1").lower()
        if log:
            with open(log, "a") as f:
                f.write("%s %s\n" % ({1: "A", 28: "AAAA"}.get(qtype, qtype), name))
        if name.startswith("slow"):
            continue
        question = data[12:end + 4]
        flags, ancount, answer = 0x8180, 0, b""
        if name not in names:
            flags = 0x8183
        elif qtype == 1:
            ancount = 1
            answer = (b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 5, 4) +
                      socket.inet_aton(names[name]))
        head = data[:2] + struct.pack("!HHHHH", flags, 1, ancount, 0, 0)
        s.sendto(head + question + answer, peer)


main()
