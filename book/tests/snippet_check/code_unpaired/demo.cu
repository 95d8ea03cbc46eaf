// Fixture for the snippet check: "body" opens and never closes.
//! [body]
int twice(int x) { return 2 * x; }
