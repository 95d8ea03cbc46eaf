// Test data for book/tools/check_claims.py: a stage the fixture README lists. Not compiled.
