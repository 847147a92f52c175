module example.com/walkdemo

go 1.22
