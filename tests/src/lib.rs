//! Shared helpers of gcnc's integration suites (in `tests/tests/`): locating corpus files and
//! small deterministic generators for fuzz smoke tests.
