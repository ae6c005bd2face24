"""The code domain: generated programs run against tests in a hostile-code sandbox."""
