"""The test suite. A package, so that pytest puts the repository (not tests/) first on sys.path: tests/server
would otherwise stand for the `server` package in a checkout the editable install does not point at."""
