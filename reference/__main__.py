"""`python -m elicit_conformance.reference` serves the reference app over stdio, one client per process."""

from elicit_conformance.reference.app import app

if __name__ == "__main__":
    app.run("stdio", show_banner=False)
