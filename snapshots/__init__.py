"""Golden transcripts: a package only so that they install with the suite."""
