// Fixture for the snippet check: one marker pair, used by pages_ok/page.md.
//! [body]
int twice(int x) { return 2 * x; }
//! [body]
