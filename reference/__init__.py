"""Reference implementation of declarative elicitation on fastmcp 4.2.

```python
from typing import Annotated
from elicit_conformance.reference import DeclarativeFastMCP, Elicit

mcp = DeclarativeFastMCP("booking")

@mcp.tool
def book(destination: Annotated[str, Elicit("Where would you like to fly?")]) -> str:
    return f"Booked a flight to {destination}"
```

Layout: `markers` (the `Elicit` marker), `questions` (reading a signature, at
registration), `answers` (schemas and validation), `rounds` (the sans-IO
engine), `serve` (fastmcp glue for both eras), `app` (the scenario tools).
"""

from elicit_conformance.reference.markers import Elicit
from elicit_conformance.reference.questions import RegistrationError
from elicit_conformance.reference.serve import DeclarativeFastMCP, declared

__all__ = ["DeclarativeFastMCP", "Elicit", "RegistrationError", "declared"]
