"""The SQL schema and everything that reads or writes it."""
