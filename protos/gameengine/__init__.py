"""Wire contract: generated protobuf stubs (v1/) and engine<->proto codecs (codecs/).

Both server/ and clients/ import this package; it is where they meet.
"""
