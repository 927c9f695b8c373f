import pytest

from router.pattern import PatternError, parse
from router.routes import Router


def make_router() -> Router:
    router = Router()
    router.add("/", "index")
    router.add("/users", "user_list")
    router.add("/users/{id:int}", "user_show")
    router.add("/users/{id:int}/posts/{slug}", "post_show")
    router.add("/files/{name}", "file_show")
    return router


@pytest.mark.parametrize(
    ("path", "handler", "params"),
    [
        ("/", "index", {}),
        ("/users", "user_list", {}),
        ("/users/", "user_list", {}),
        ("/users/42", "user_show", {"id": 42}),
        ("/users/42?tab=posts", "user_show", {"id": 42}),
        ("/users/7/posts/hello-world", "post_show", {"id": 7, "slug": "hello-world"}),
        ("/files/report.pdf", "file_show", {"name": "report.pdf"}),
    ],
)
def test_resolve(path: str, handler: str, params: dict[str, object]) -> None:
    match = make_router().resolve(path)
    assert match is not None
    assert (match.handler, match.params) == (handler, params)


@pytest.mark.parametrize("path", ["/users/abc", "/nowhere", "/users/1/posts"])
def test_no_match(path: str) -> None:
    assert make_router().resolve(path) is None


def test_unknown_converter() -> None:
    with pytest.raises(PatternError):
        parse("/x/{id:float}")


def test_pattern_must_be_absolute() -> None:
    with pytest.raises(PatternError):
        parse("users")


def test_handlers_are_listed_once() -> None:
    router = make_router()
    router.add("/people/{id:int}", "user_show")
    expected = ["file_show", "index", "post_show", "user_list", "user_show"]
    assert router.handlers() == expected
