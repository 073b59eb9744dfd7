"""JsonBodyRoute: the fast JSON body handler only where it does all FastAPI would."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient
from pydantic import BaseModel

from service.api.bodies import JsonBodyRoute


class Item(BaseModel):
    name: str


router = APIRouter(route_class=JsonBodyRoute)


@router.post("/plain")
async def plain(item: Item) -> JSONResponse:
    return JSONResponse({"name": item.name})


@router.post("/with-query")
async def with_query(item: Item, tag: str = "none") -> JSONResponse:
    """Takes more than the body: FastAPI's own handler, so the query is read."""
    return JSONResponse({"name": item.name, "tag": tag})


@router.post("/returns-dict")
async def returns_dict(item: Item) -> dict[str, str]:
    """Returns no Response: FastAPI's own handler serialises the value."""
    return {"name": item.name}


def test_each_route_gets_the_handler_that_serves_all_it_takes() -> None:
    app = FastAPI()
    app.include_router(router)
    with TestClient(app) as client:
        assert client.post("/plain", json={"name": "a"}).json() == {"name": "a"}
        answer = client.post("/with-query?tag=t", json={"name": "b"}).json()
        assert answer == {"name": "b", "tag": "t"}
        assert client.post("/returns-dict", json={"name": "c"}).json() == {"name": "c"}
