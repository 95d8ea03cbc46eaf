// Fixture for the snippet check: the pair "body" is used, the pair "extra" is not.
//! [body]
int twice(int x) { return 2 * x; }
//! [body]
//! [extra]
int thrice(int x) { return 3 * x; }
//! [extra]
