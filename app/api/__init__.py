"""REST routes, one ``APIRouter`` per module."""
