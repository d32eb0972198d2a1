"""Data-dir format (journal records, snapshots): see storage.proto."""
