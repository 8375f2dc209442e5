"""REST routes, one APIRouter per resource."""
