"""HTTP API: one APIRouter per module in ``routes``."""
